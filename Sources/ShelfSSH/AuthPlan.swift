// AuthPlan: which login methods a hop tries, in OpenSSH's order, and where each one's credential comes from
// (a reference or a path, never a value). The authenticator runs these steps (limited to what the server
// offers) and `connect --dry-run` prints the same steps, so the plan shown is the plan run.
import FoundationEssentials
import ShelfCore

public enum AuthStep: Sendable, Equatable {
    /// Where a private key comes from: the vault (by reference) or a key file named by the identity.
    public enum KeySource: Sendable, Equatable {
        case vault(ReferenceKey)
        case file(String)
        /// One more IdentityFile of the host's options: tried when it exists, skipped when it does not (as ssh does).
        case optionalFile(String)

        /// The identity's own key (in the vault or its key file), not another IdentityFile of the host.
        var isIdentityFile: Bool { if case .optionalFile = self { false } else { true } }
    }

    case publicKey(identity: String, source: KeySource)
    /// ssh-agent at this socket; nil when none is set (the step then fails without a try).
    case agent(socket: String?)
    /// Answered on the terminal; a lone hidden prompt is answered from the stored password when there is one.
    case keyboardInteractive(storedPassword: ReferenceKey?)
    /// The stored password when there is one (never a prompt in its place if it is missing), else asked.
    case password(stored: ReferenceKey?)

    /// The method name the server lists (agent keys log in by publickey).
    public var wireName: String {
        switch self {
        case .publicKey, .agent: "publickey"
        case .keyboardInteractive: "keyboard-interactive"
        case .password: "password"
        }
    }

    /// One key of sshelf's own (not the agent's several): what a login may send before asking for the methods.
    var isOwnKey: Bool { if case .publicKey = self { true } else { false } }

    /// The name sshelf reports ("agent" apart from a key of its own).
    public var name: String {
        switch self {
        case .publicKey: "publickey"
        case .agent: "agent"
        case .keyboardInteractive: "keyboard-interactive"
        case .password: "password"
        }
    }
}

public enum AuthPlan {
    /// The steps for `hop`, in order, for its configured method. `environment` answers `IdentityAgent $NAME`.
    public static func steps(for hop: SSHEndpoint, agentSocket: String?, environment: [String: String] = [:])
        -> [AuthStep]
    {
        var key: [AuthStep] = []
        var files: Set<String> = []
        if let identity = hop.identity {
            if let reference = identity.privateKeyRef {
                key = [.publicKey(identity: identity.name, source: .vault(reference))]
            } else if !identity.keyFile.isEmpty {
                key = [.publicKey(identity: identity.name, source: .file(identity.keyFile))]
                files.insert(identity.keyFile)
            }
        }
        // The host's other IdentityFiles, in the order written.
        for path in hop.settings.identityFiles where files.insert(path).inserted {
            key.append(.publicKey(identity: "IdentityFile \(path)", source: .optionalFile(path)))
        }
        let socket = agent(hop.settings.identityAgent, default: agentSocket, environment: environment)
        // IdentitiesOnly: only the keys named for the host, no other agent key.
        let agent: [AuthStep] =
            hop.settings.identitiesOnly && !key.isEmpty ? [] : socket.map { [.agent(socket: $0)] } ?? []
        let keyboard = AuthStep.keyboardInteractive(storedPassword: hop.passwordRef)
        let password = AuthStep.password(stored: hop.passwordRef)
        switch hop.authMethod {
        case .publickey: return key + agent
        case .agent: return [.agent(socket: socket)]
        case .password: return [password]
        case .keyboardInteractive: return [keyboard]
        case .auto, .other: return key + agent + [keyboard, password]
        }
    }

    /// The agent socket a hop uses: its IdentityAgent (a path, `none`, `SSH_AUTH_SOCK` or `$NAME`), else the default.
    static func agent(_ option: String?, default socket: String?, environment: [String: String]) -> String? {
        guard let option else { return socket }
        if option.lowercased() == "none" { return nil }
        if option == "SSH_AUTH_SOCK" { return socket }
        if option.hasPrefix("$") { return environment[String(option.dropFirst())].flatMap { $0.isEmpty ? nil : $0 } }
        if option.hasPrefix("~/"), let home = environment["HOME"] { return home + option.dropFirst(1) }
        return option
    }
}
