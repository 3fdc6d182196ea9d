// IdentityKeyCommands: `identity show` (the public key line, as in a .pub file), `identity edit` (name and the
// agent's options: confirm each use, lifetime) and `identity rm` (the record, its place on hosts, its vault items).
import Foundation
import ShelfCore
import ShelfStore
import ShelfVault

enum IdentityKeyCommands {
    /// The agent's per-identity options, shared by import, keygen and edit.
    static let agentOptions: [OptionSpec] = [
        .flag("confirm", "the sshelf agent asks before every signature with this key"),
        .value("lifetime", "SECONDS", "the sshelf agent serves the key this long after it starts serving it (0: no limit)"),
    ]

    static let commands: [CommandSpec] = [
        CommandSpec(
            path: ["identity", "show"], summary: "print an identity's public key line (for authorized_keys)",
            details: "The line is `type base64 comment`, as ssh-keygen writes it to a .pub file.",
            arguments: [ArgumentSpec(name: "NAME", help: "identity name", completion: .identity)],
            examples: ["sshelf identity show work >> ~/.ssh/authorized_keys"], run: show),
        CommandSpec(
            path: ["identity", "edit"], summary: "rename an identity or change the agent's options for it",
            arguments: [ArgumentSpec(name: "NAME", help: "identity name", completion: .identity)],
            options: agentOptions + [
                .flag("no-confirm", "stop asking before each signature"),
                .value("rename", "NEWNAME", "give the identity a new name"),
            ],
            examples: ["sshelf identity edit work --confirm --lifetime 3600"], run: edit),
        CommandSpec(
            path: ["identity", "rm"], summary: "delete an identity and its private key from the vault",
            details: "Hosts using it keep everything but the identity. A key file on disk is left alone.",
            arguments: [ArgumentSpec(name: "NAME", help: "identity name", completion: .identity)],
            run: remove),
    ]

    static func show(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let identity = try Resolve.identity(call.arguments[0], in: try context.store())
        guard !identity.publicKey.isEmpty else {
            throw ShelfError(.notFound, "identity '\(Display.safe(identity.name))' has no public key recorded",
                             hint: "import its key again: sshelf identity import \(Display.safe(identity.name)) FILE")
        }
        context.print(Display.safe(identity.publicKey))
        return 0
    }

    /// Applies --confirm / --no-confirm / --lifetime to `identity`.
    static func applyAgentOptions(_ call: Invocation, to identity: inout Identity) throws {
        if call.flag("confirm") && call.flag("no-confirm") {
            throw ShelfError(.usage, "--confirm and --no-confirm contradict each other")
        }
        if call.flag("confirm") { identity.confirmEachUse = true }
        if call.flag("no-confirm") { identity.confirmEachUse = false }
        if let text = call.value("lifetime") {
            guard let seconds = Int(text), (0...Validation.maximumAgentLifetime).contains(seconds) else {
                throw ShelfError(.usage, "--lifetime: '\(Display.safe(text))' is not a number of seconds (0-\(Validation.maximumAgentLifetime))")
            }
            identity.agentLifetime = seconds
        }
    }

    static func edit(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        let saved = try store.write { store -> Identity in
            var identity = try Resolve.identity(call.arguments[0], in: store)
            try applyAgentOptions(call, to: &identity)
            if let name = call.value("rename") {
                if try store.identities().contains(where: { $0.name == name && $0.id != identity.id }) {
                    throw ShelfError(.usage, "an identity named '\(Display.safe(name))' exists already")
                }
                identity.name = name
            }
            let problems = Validation.problems(identity)
            guard problems.isEmpty else { throw ShelfError.invalid(problems) }
            identity.updatedAt = Date()
            try store.save(identity)
            return identity
        }
        context.print("saved identity '\(Display.safe(saved.name))': " + describe(saved))
        return 0
    }

    /// `confirm each use, lifetime 3600 s` or `no agent options`.
    static func describe(_ identity: Identity) -> String {
        var parts: [String] = []
        if identity.confirmEachUse { parts.append("confirm each use") }
        if identity.agentLifetime > 0 { parts.append("agent lifetime \(identity.agentLifetime) s") }
        return parts.isEmpty ? "no agent options" : parts.joined(separator: ", ")
    }

    static func remove(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        let identity = try store.read { try Resolve.identity(call.arguments[0], in: $0) }
        let hosts = try store.write { try $0.deleteIdentityClearingHosts(identity.id) } ?? 0
        var note = ""
        if Vault.exists(at: context.locations) {
            let vault = try VaultCommands.open(context, create: false)
            do {
                for accessibility in AccessibilityClass.allCases {
                    try vault.clearIdentityPrivateKey(identity.id, class: accessibility)
                    try vault.clearIdentityPassphrase(identity.id, class: accessibility)
                }
            } catch {
                note = "; its vault items could not be removed (\(error.message)): 'sshelf vault rm identity.\(identity.id.uuidString.lowercased()).privkey'"
            }
        }
        context.print("deleted identity '\(Display.safe(identity.name))'" + (hosts == 0 ? "" : "; cleared it from \(hosts) host(s)") + note)
        return 0
    }
}
