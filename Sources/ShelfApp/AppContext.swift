// AppContext: what a command runs with — environment, data locations, output streams, and the store,
// opened on first use so `--help` and `--version` never touch the disk. Its workspace is what the operations
// layer is given.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfStore

final class AppContext: @unchecked Sendable {
    let environment: [String: String]
    let locations: DataLocations
    private var openedStore: Store?
    var output: (String) -> Void
    var errorOutput: (String) -> Void

    init(environment: [String: String], output: @escaping (String) -> Void, errorOutput: @escaping (String) -> Void) {
        self.environment = environment
        self.locations = DataLocations.resolve(environment: environment)
        self.output = output
        self.errorOutput = errorOutput
    }

    /// The operations' view: warnings go through this context (so a caller that must keep stderr clean, the
    /// TUI under curses, can catch them).
    /// (Weakly: the store this context opens keeps its workspace for its change hook.)
    var workspace: Workspace { Workspace(environment: environment, warn: { [weak self] text in self?.warn(Display.safe(text)) }) }

    var homeDirectory: String { workspace.homeDirectory }

    func store() throws -> Store {
        if let openedStore { return openedStore }
        let store = try workspace.openStore()
        openedStore = store
        return store
    }

    func print(_ text: String) { output(text.hasSuffix("\n") ? text : text + "\n") }
    func warn(_ text: String) { errorOutput("sshelf: warning: \(text)\n") }
}
