// Workspace: what an operation runs with — the environment (switches, never secrets), the data locations it
// names, the home directory, and where warnings go (the CLI prints them; the TUI keeps them off the screen).
import FoundationEssentials
import ShelfCore

public struct Workspace: Sendable {
    public let environment: [String: String]
    public let locations: DataLocations
    /// A warning for the user ("could not remember the password: …"); never a secret.
    public let warn: @Sendable (String) -> Void
    /// The sshelf executable, when this process is sshelf: the ssh_config bridge's unlock guard runs it (nil in a
    /// library's tests: the bridge then writes the older agent check).
    public let program: String?

    public init(environment: [String: String], program: String? = nil, warn: @escaping @Sendable (String) -> Void) {
        self.environment = environment
        self.locations = DataLocations.resolve(environment: environment)
        self.program = program
        self.warn = warn
    }

    public var homeDirectory: String {
        environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? FileManager.default.homeDirectoryForCurrentUser.path
    }

    /// The same workspace with warnings sent elsewhere.
    public func warning(to warn: @escaping @Sendable (String) -> Void) -> Workspace {
        Workspace(environment: environment, program: program, warn: warn)
    }
}
