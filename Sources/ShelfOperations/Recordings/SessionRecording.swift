// SessionRecording: whether a session to a host is recorded and the start of its recorder — the host's (or its
// groups') setting read from the store, the retention applied first (and interrupted recordings sealed), then the
// recorder started with the vault's recordings key. The CLI and the TUI both start recordings through here.
import FoundationEssentials
import ShelfCore
import ShelfSSH
import ShelfStore
import ShelfVault

public enum SessionRecording {
    /// The setting that applies to `host` now (its own, its groups', else off).
    public static func setting(for host: ShelfCore.Host, in store: Store) throws -> RecordSetting {
        try store.read { store in
            let groups = Dictionary(try store.groups().map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            return RecordSetting.effective(host: host, groups: groups)
        }
    }

    /// Starts recording a session to `host` (`by`: connect, tui, openssh).
    public static func begin(
        host: ShelfCore.Host, size: TerminalSize, recordInput: Bool, by: String, workspace: Workspace, store: Store
    ) throws -> SessionRecorder {
        let vault = try VaultAccess.open(workspace, create: true)
        let retention = try RecordingCatalog.retention(from: { try store.setting($0) })
        try RecordingCatalog.tidy(locations: workspace.locations, retention: retention, vault: vault)
        return try SessionRecorder.start(
            host: host.name, hostID: host.id, size: size, recordInput: recordInput, by: by, vault: vault,
            locations: workspace.locations)
    }
}
