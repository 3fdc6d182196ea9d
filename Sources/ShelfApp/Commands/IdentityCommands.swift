// IdentityCommands: `sshelf identity list|import|rm` and `keygen` — identities (keys) and the hosts using them.
// A private key file moves into the vault on import, its public half into the store; keygen makes a new
// ed25519 key in the vault (IdentityOperations does the work; here are the options, prompts and output).
import Foundation
import ShelfCore
import ShelfOperations
import ShelfStore
#if canImport(Glibc)
import Glibc
#endif

enum IdentityCommands {
    static let commands: [CommandSpec] = [
        CommandSpec(path: ["identity", "list"], summary: "list identities (keys) and the hosts using them",
                    options: [.flag("json", "print JSON for scripts")], run: list),
        CommandSpec(path: ["identity", "import"], summary: "move a private key file into the vault",
                    details: "OpenSSH and PEM keys. An encrypted key's passphrase is asked for and kept in the vault beside it. The public key goes to the store (from the key itself, or PATH.pub). The file is left alone unless --remove-file.",
                    arguments: [ArgumentSpec(name: "NAME", help: "identity name"),
                                ArgumentSpec(name: "PATH", help: "private key file", completion: .file)],
                    options: [.flag("remove-file", "delete the key file once it is in the vault"),
                              .value("key-passphrase-fd", "N", "read the key's own passphrase from descriptor N"),
                              VaultCommands.passphraseFD],
                    examples: ["sshelf identity import work ~/.ssh/id_ed25519"], run: importKey),
        CommandSpec(path: ["identity", "rm"], summary: "remove an identity; its hosts keep everything else",
                    details: "The hosts that used it are left without an identity (in the same transaction), and its private key and passphrase are removed from this device's vault.",
                    arguments: [ArgumentSpec(name: "NAME", help: "identity name (or id prefix)", completion: .identity)],
                    examples: ["sshelf identity rm old-laptop-key"], run: remove),
        CommandSpec(path: ["keygen"], summary: "create an ed25519 identity; the private key stays in the vault",
                    details: "Prints the public key line for authorized_keys.",
                    arguments: [ArgumentSpec(name: "NAME", help: "identity name")],
                    options: [.value("comment", "TEXT", "comment on the public key (default: NAME)"), VaultCommands.passphraseFD],
                    run: keygen),
    ]

    static func list(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        let (identities, hosts) = try store.read { store in (try store.identities(), try store.hosts()) }
        if call.flag("json") {
            context.print(try JSONOutput.encode(identities))
            return 0
        }
        if identities.isEmpty {
            context.errorOutput("no identities yet; 'sshelf import ssh-config' records IdentityFile keys\n")
            return 0
        }
        var users: [UUID: Int] = [:]
        for host in hosts { if let id = host.identityID { users[id, default: 0] += 1 } }
        let rows = identities.map { identity in
            [identity.name, identity.keyType.rawValue, identity.privateKeyRef == nil ? identity.keyFile : "vault",
             "\(users[identity.id] ?? 0)"]
        }
        context.output(Display.table(["NAME", "TYPE", "PRIVATE KEY", "HOSTS"], rows))
        return 0
    }

    static func importKey(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let (name, path) = (call.arguments[0], call.arguments[1])
        let vaultInput = try SecretInput(call, option: "passphrase-fd")
        let keyInput = try SecretInput(call, option: "key-passphrase-fd")
        let imported = try IdentityOperations.importKey(
            named: name, from: path, workspace: context.workspace, store: try context.store(),
            vaultPassphrase: { try vaultInput.read(prompt: "Vault passphrase: ") },
            keyPassphrase: { try keyInput.read(prompt: "Passphrase of \(Display.safe(path)): ") })
        if call.flag("remove-file") && unlink(path) != 0 {
            context.warn("the key is in the vault, but \(Display.safe(path)) could not be removed: \(String(cString: strerror(errno)))")
        }
        context.print("imported \(imported.format) key '\(Display.safe(name))' into the vault (\(imported.keyClass))"
            + (imported.foundPublicKey ? "" : "; no public key found (add \(Display.safe(path)).pub and import again)"))
        return 0
    }

    static func remove(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        let identity = try Resolve.identity(call.arguments[0], in: store)
        let deleted = try IdentityOperations.delete(identity.id, workspace: context.workspace, in: store)
        context.print(deleted?.summary ?? "the identity is already gone")
        return 0
    }

    static func keygen(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let vaultInput = try SecretInput(call, option: "passphrase-fd")
        let (_, publicKey) = try IdentityOperations.generate(
            named: call.arguments[0], comment: call.value("comment"), workspace: context.workspace,
            store: try context.store(), vaultPassphrase: { try vaultInput.read(prompt: "Vault passphrase: ") })
        context.print(publicKey)
        return 0
    }
}
