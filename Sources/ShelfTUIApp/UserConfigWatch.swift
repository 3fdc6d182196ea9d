// UserConfigWatch: ~/.ssh/config as the TUI offers it — there or not (the empty screen's `o`), and changed since
// its last import or not (the status line; the same rule as `sshelf check`: UserConfigSource). Looked at again only
// when the file or the store changed (a stat and the store's data version), so an idle TUI reads nothing.
import ShelfCore
import ShelfOperations
import ShelfStore
import ShelfUI

struct UserConfigWatch {
    private let path: String
    private let source: UserConfigSource
    private var seen: (FileStamp?, Int?)?
    private var posted: UserConfigState?

    init(workspace: Workspace) {
        path = ConfigImport.userConfigPath(home: workspace.homeDirectory)
        source = UserConfigSource(bridge: SSHConfigBridge(workspace: workspace))
    }

    /// The state when it differs from the one last returned (nil: nothing new). `dataVersion` is the store's, read by
    /// the caller: an import (or the bridge's Include going in) changes what "changed since its import" means.
    mutating func check(store: Store?, dataVersion: Int?) -> UserConfigState? {
        let stamp = FileStamp(path)
        if let seen, seen.0 == stamp, seen.1 == dataVersion { return nil }
        seen = (stamp, dataVersion)
        let state = UserConfigState(
            path: ConfigImport.defaultPath, exists: stamp != nil,
            changedSinceImport: stamp != nil && store.map { source.changedSinceImport(store: $0) } == true)
        guard state != posted else { return nil }
        posted = state
        return state
    }
}
