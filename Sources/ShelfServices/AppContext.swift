// AppContext: what a command runs with — environment, data locations, output streams, and the store,
// opened on first use so `--help` and `--version` never touch the disk. Its workspace is what the operations
// layer is given.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfStore

public final class AppContext: @unchecked Sendable {
    public let environment: [String: String]
    public let locations: DataLocations
    private var openedStore: Store?
    public var output: (String) -> Void
    public var errorOutput: (String) -> Void
    /// Opens the terminal UI in a context (with a benchmark to run, for `sshelf ui --benchmark-report`): the TUI is
    /// a face the command line does not import, so the executable that wires the two together sets it (SshelfMain).
    /// The context is an argument, not captured: a context holding a closure that holds it would never be freed,
    /// and its store never closed (nor its WAL checkpointed) at exit.
    public var openTerminalUI: ((AppContext, _ benchmark: (report: String, query: String)?) -> Int32)?
    /// The host whose file pane the terminal UI opens at start (`sshelf files HOST [PATH]`), and the folders each
    /// side starts in (nil: the login's home, the current folder).
    public var filesOnStart: (hostID: UUID, name: String, remotePath: [UInt8]?, localPath: [UInt8]?)?

    public init(
        environment: [String: String], output: @escaping (String) -> Void, errorOutput: @escaping (String) -> Void
    ) {
        self.environment = environment
        self.locations = DataLocations.resolve(environment: environment)
        self.output = output
        self.errorOutput = errorOutput
    }

    /// The operations' view: warnings go through this context (so a caller that must keep stderr clean, the
    /// TUI under curses, can catch them).
    /// (Weakly: the store this context opens keeps its workspace for its change hook.)
    public var workspace: Workspace {
        Workspace(
            environment: environment, program: SelfProcess.sshelfPath,
            warn: { [weak self] text in self?.warn(Display.safe(text)) })
    }

    public var homeDirectory: String { workspace.homeDirectory }

    public func store() throws -> Store {
        if let openedStore { return openedStore }
        let store = try workspace.openStore()
        openedStore = store
        return store
    }

    public func print(_ text: String) { output(text.hasSuffix("\n") ? text : text + "\n") }
    public func warn(_ text: String) { errorOutput("sshelf: warning: \(text)\n") }
}
