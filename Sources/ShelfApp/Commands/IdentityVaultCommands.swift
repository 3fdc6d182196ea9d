// IdentityVaultCommands: `identity import NAME PATH` (a private key file moves into the vault, its public half
// into the store) and `keygen NAME` (a new ed25519 identity made with libsodium).
import Foundation
import ShelfCore
import ShelfStore
import ShelfVault
#if canImport(Glibc)
import Glibc
#endif

enum IdentityVaultCommands {
    static let commands: [CommandSpec] = [
        CommandSpec(path: ["identity", "import"], summary: "move a private key file into the vault",
                    details: "OpenSSH and PEM keys. An encrypted key's passphrase is asked for and kept in the vault beside it. The public key goes to the store (from the key itself, or PATH.pub). The file is left alone unless --remove-file.",
                    arguments: [ArgumentSpec(name: "NAME", help: "identity name"),
                                ArgumentSpec(name: "PATH", help: "private key file", completion: .file)],
                    options: [.flag("remove-file", "delete the key file once it is in the vault"),
                              .value("key-passphrase-fd", "N", "read the key's own passphrase from descriptor N"),
                              VaultCommands.passphraseFD] + IdentityKeyCommands.agentOptions,
                    examples: ["sshelf identity import work ~/.ssh/id_ed25519"], run: importIdentity),
        CommandSpec(path: ["keygen"], summary: "create an ed25519 identity; the private key stays in the vault",
                    details: "Prints the public key line for authorized_keys.",
                    arguments: [ArgumentSpec(name: "NAME", help: "identity name")],
                    options: [.value("comment", "TEXT", "comment on the public key (default: NAME)"), VaultCommands.passphraseFD]
                        + IdentityKeyCommands.agentOptions,
                    run: keygen),
    ]

    static func moment(for identityID: UUID, in store: Store) throws -> ReadMoment {
        let (hosts, rules) = try store.read { store in (try store.hosts(), try store.forwardRules()) }
        return ClassPolicy.readMoment(identity: identityID, hosts: hosts, forwardRules: rules)
    }

    static func importIdentity(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let name = call.arguments[0], path = call.arguments[1]
        let file = try SecretInput.readFile(path)
        guard let inspection = OpenSSHKey.inspect(file) else {
            throw ShelfError(.invalid, "\(Display.safe(path)) is not a private key in OpenSSH or PEM format")
        }
        let store = try context.store()
        var identity = try store.identities().first { $0.name == name } ?? Identity(name: name)
        var publicKey = inspection.publicKey
        // The .pub beside the key gives the public key of a PEM file, and the comment of any key (so that
        // `identity show` prints the same line): taken when it holds the same key.
        if let text = try? String(contentsOfFile: path + ".pub", encoding: .utf8) {
            let line = text.split(separator: "\n").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            let key = line.split(separator: " ").prefix(2).joined(separator: " ")
            if publicKey == nil || publicKey == key, !key.isEmpty { publicKey = Validation.controlCharacterProblem(line) == nil ? line : key }
        }
        let typeName = inspection.keyType ?? publicKey.map { String($0.prefix { $0 != " " }) } ?? ""
        identity.keyType = typeName.contains("ed25519") ? .ed25519 : typeName.contains("ecdsa") ? .ecdsa
            : typeName.contains("rsa") ? .rsa : identity.keyType
        identity.publicKey = publicKey ?? identity.publicKey
        try IdentityKeyCommands.applyAgentOptions(call, to: &identity)
        let moment = try moment(for: identity.id, in: store)
        let keyClass = ClassPolicy.accessibility(for: .identityPrivateKey, readAt: moment)
        let passphraseClass = ClassPolicy.accessibility(for: .identityPassphrase, readAt: moment)
        let vault = try VaultCommands.open(context, create: true)
        try VaultCommands.unlockIfNeeded(vault, for: [keyClass, passphraseClass], try SecretInput(call, option: "passphrase-fd"))
        let keyPassphrase = inspection.encrypted
            ? try SecretInput(call, option: "key-passphrase-fd").read(prompt: "Passphrase of \(Display.safe(path)): ") : nil
        try VaultCommands.attempt { () throws(VaultError) in
            try vault.saveIdentityPrivateKey(file, identityID: identity.id, class: keyClass)
            if let keyPassphrase, !keyPassphrase.isEmpty {
                try vault.saveIdentityPassphrase(keyPassphrase, identityID: identity.id, class: passphraseClass)
            }
            // One copy, in the class the policy names: drop older copies (and a passphrase no longer needed).
            for other in AccessibilityClass.allCases {
                if other != keyClass { try vault.clearIdentityPrivateKey(identity.id, class: other) }
                if other != passphraseClass || keyPassphrase?.isEmpty != false {
                    try vault.clearIdentityPassphrase(identity.id, class: other)
                }
            }
        }
        identity.privateKeyRef = .identityPrivateKey(identity.id)
        identity.passphraseRef = (keyPassphrase?.isEmpty == false) ? .identityPassphrase(identity.id) : nil
        identity.keyFile = ""
        identity.updatedAt = Date()
        try store.write { try $0.save(identity) }
        if call.flag("remove-file") && unlink(path) != 0 {
            context.warn("the key is in the vault, but \(Display.safe(path)) could not be removed: \(String(cString: strerror(errno)))")
        }
        context.print("imported \(inspection.format.rawValue) key '\(Display.safe(name))' into the vault (\(keyClass))"
            + (publicKey == nil ? "; no public key found (add \(Display.safe(path)).pub and import again)" : ""))
        return 0
    }

    static func keygen(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let name = call.arguments[0]
        let store = try context.store()
        if try store.identities().contains(where: { $0.name == name }) {
            throw ShelfError(.usage, "an identity named '\(Display.safe(name))' exists already",
                             hint: "choose another name, or 'sshelf identity import' to replace its key")
        }
        var identity = Identity(name: name, keyType: .ed25519)
        try IdentityKeyCommands.applyAgentOptions(call, to: &identity)
        let keyClass = ClassPolicy.accessibility(for: .identityPrivateKey, readAt: .interactive)
        let vault = try VaultCommands.open(context, create: true)
        try VaultCommands.unlockIfNeeded(vault, for: [keyClass], try SecretInput(call, option: "passphrase-fd"))
        let (privateKey, publicKey) = OpenSSHKey.generateEd25519(comment: call.value("comment") ?? name)
        try VaultCommands.attempt { () throws(VaultError) in
            try vault.saveIdentityPrivateKey(privateKey, identityID: identity.id, class: keyClass)
        }
        identity.publicKey = publicKey
        identity.privateKeyRef = .identityPrivateKey(identity.id)
        try store.write { try $0.save(identity) }
        context.print(publicKey)
        return 0
    }
}
