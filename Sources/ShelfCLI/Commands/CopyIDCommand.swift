// CopyIDCommand: `sshelf copy-id HOST` — installs an identity's public key in the host's ~/.ssh/authorized_keys
// over sshelf's own connection (host key verified first, as always; the install itself is AuthorizedKeyInstall).
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfSSH
import ShelfServices
import ShelfStore
import ShelfVault

#if canImport(Glibc)
import Glibc
#endif

enum CopyIDCommand {
    static let command = CommandSpec(
        path: ["copy-id"], summary: "install an identity's public key in a host's ~/.ssh/authorized_keys",
        details: """
            Logs in the usual way (host key verified first; password, key or agent), then appends the public key \
            line of the host's identity (or --identity NAME) to ~/.ssh/authorized_keys, creating ~/.ssh (0700) and \
            the file (0600) when missing. A key the file already has is not added twice.
            """,
        arguments: [ArgumentSpec(name: "HOST", help: "host name (or id prefix)", completion: .host)],
        options: Options.self,
        examples: ["sshelf copy-id web1", "sshelf copy-id web1 --identity laptop --password-fd 3 3<pw.txt"],
        run: run)

    struct Options: PromptingLoginOptions {
        let identity = Option(
            "identity", .text("NAME", completion: .identity), "the identity to install (default: the host's own)")
        let login = LoginAnswerOptions()
    }

    static func run(_ call: Call<Options>, _ context: AppContext) throws -> Int32 {
        let (plan, store) = try SSHCommands.plan(for: call.arguments[0], context)
        let identity = try store.read { store -> Identity in
            if let name = call[\.identity] { return try Resolve.identity(name, in: store) }
            guard let id = plan.target.identityID, let own = try store.identities().first(where: { $0.id == id }) else {
                throw ShelfError(
                    .usage, "\(Display.safe(plan.target.name)) has no identity to install",
                    hint: "say which: sshelf copy-id \(Display.safe(plan.target.name)) --identity NAME")
            }
            return own
        }
        let line = try AuthorizedKeyInstall.keyLine(for: identity)
        let options = SSHCommands.connectOptions(call, context)
        let host = Display.safe(plan.target.name)
        let name = Display.safe(identity.name)
        return try SSHCommands.withConnection(plan, store: store, call: call, options: options, context: context) {
            connection in
            switch try AuthorizedKeyInstall.install(line, on: connection) {
            case .added:
                context.print("installed identity '\(name)' in ~/.ssh/authorized_keys on \(host)")
                return 0
            case .present:
                context.print("\(host) already has identity '\(name)' in ~/.ssh/authorized_keys; nothing added")
                return 0
            case .failed(let reason):
                context.errorOutput("sshelf: error: copy-id to \(host) failed: \(Display.safe(reason))\n")
                return 1
            }
        }
    }
}
