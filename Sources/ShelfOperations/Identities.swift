// Identities: saving and deleting identities (the hosts using one keep everything but it; its key leaves this
// device's vault with it), moving a private key file into the vault, and making a new ed25519 key there.
import FoundationEssentials
import ShelfCore
import ShelfStore
import ShelfSystem
import ShelfVault

public enum IdentityOperations {
    public struct Saved: Sendable {
        /// The record written: the one asked for, or the identity that already held its key.
        public var identity: Identity
        /// The name asked for, when the key was another identity's already and the new record was linked to it.
        public var linkedFrom: String?
        public var summary: String {
            guard let linkedFrom else { return "saved identity \(Display.safe(identity.name))" }
            return IdentityOperations.linkNote(asked: linkedFrom, holder: identity)
        }
    }

    /// Saves an identity, keeping one identity per key: a new record whose public key another identity holds is
    /// linked to that one (which keeps its name and takes the stricter agent options of the two); an existing record
    /// given another identity's key is refused.
    @discardableResult
    public static func save(_ identity: Identity, in store: Store) throws -> Saved {
        let problems = Validation.problems(identity)
        guard problems.isEmpty else { throw ShelfError.invalid(problems) }
        return try store.write { store -> Saved in
            let identities = try store.identities()
            let existing = identities.first { $0.id == identity.id }
            // A record keeping its own key is saved as it is (two that sync brought together stay editable).
            let key = IdentityKeys.blob(of: identity.publicKey)
            let newKey = existing.map { IdentityKeys.blob(of: $0.publicKey) != key } ?? true
            guard newKey,
                let holder = IdentityKeys.holder(
                    of: identity.publicKey, among: identities,
                    except: identity.id)
            else {
                try store.save(identity)
                return Saved(identity: identity, linkedFrom: nil)
            }
            guard existing == nil else { throw keyTaken(by: holder, identity.publicKey) }
            var linked = holder
            (linked.confirmEachUse, linked.agentLifetime) = IdentityKeys.stricter(holder, identity)
            if linked.keyFile.isEmpty && linked.privateKeyRef == nil { linked.keyFile = identity.keyFile }
            if linked != holder {
                linked.updatedAt = Date()
                try store.save(linked)
            }
            return Saved(identity: linked, linkedFrom: identity.name)
        }
    }

    /// What a linked import or save says: which identity has the key, and its agent options now.
    public static func linkNote(asked name: String, holder: Identity) -> String {
        let fingerprint = IdentityKeys.fingerprint(of: holder.publicKey) ?? "this key"
        let options = [
            holder.confirmEachUse ? "confirm each use" : nil,
            holder.agentLifetime > 0 ? "agent lifetime \(holder.agentLifetime) s" : nil,
        ].compactMap { $0 }
        return "the key \(fingerprint) is identity '\(Display.safe(holder.name))''s already: "
            + "'\(Display.safe(name))' is linked to it, one key has one identity (agent options: "
            + (options.isEmpty ? "none" : options.joined(separator: ", ")) + ")"
    }

    /// An existing identity cannot take a key another identity holds.
    static func keyTaken(by holder: Identity, _ publicKey: String) -> ShelfError {
        let fingerprint = IdentityKeys.fingerprint(of: publicKey) ?? "this key"
        let name = ShellWord.quote(holder.name)
        let shown = Display.safe(holder.name)
        return ShelfError(
            .invalid, "the key \(fingerprint) is identity '\(shown)''s already; one key has one identity",
            hint: "use \(name) for it, or remove it first: sshelf identity rm \(name)")
    }

    public struct Deleted: Sendable {
        public var name: String
        public var clearedHosts: Int
        /// Vault items (private key, passphrase) removed from this device; nil when the vault could not be
        /// opened (the warning says why).
        public var vaultItems: Int?
        public var summary: String {
            var text = "deleted identity \(Display.safe(name))"
            if clearedHosts > 0 { text += "; cleared it from \(clearedHosts) host(s)" }
            switch vaultItems {
            case nil: text += "; its key is still in the vault, which could not be opened"
            case let count? where count > 0: text += "; its key left the vault"
            default: break
            }
            return text
        }
    }

    /// Deletes an identity in one store transaction (the hosts using it lose only the identity), then removes
    /// its private key and passphrase from this device's vault, whatever class they are in. nil when it was
    /// already gone. A vault that cannot be opened is a warning, not a failure: the store change stands.
    public static func delete(_ id: UUID, workspace: Workspace, in store: Store) throws -> Deleted? {
        let outcome = try store.write { store -> (Identity, Int)? in
            guard let identity = try store.identities().first(where: { $0.id == id }),
                let cleared = try store.deleteIdentityClearingHosts(id)
            else { return nil }
            return (identity, cleared)
        }
        guard let (identity, cleared) = outcome else { return nil }
        var deleted = Deleted(name: identity.name, clearedHosts: cleared, vaultItems: 0)
        guard identity.privateKeyRef != nil || identity.passphraseRef != nil, Vault.exists(at: workspace.locations)
        else {
            return deleted
        }
        do {
            let vault = try VaultAccess.open(workspace, create: false)
            var removed = 0
            for accessibility in AccessibilityClass.allCases {
                if try vault.clearIdentityPrivateKey(id, class: accessibility) { removed += 1 }
                if try vault.clearIdentityPassphrase(id, class: accessibility) { removed += 1 }
            }
            deleted.vaultItems = removed
        } catch {
            deleted.vaultItems = nil
            workspace.warn(
                "identity \(Display.safe(identity.name)) is deleted, but its key could not be removed from the vault: "
                    + "\(ShelfError(from: error).message)")
        }
        return deleted
    }

    public struct Imported: Sendable {
        public var identity: Identity
        public var format: String
        public var keyClass: AccessibilityClass
        public var foundPublicKey: Bool
        /// An encrypted key was opened with its passphrase and stored unencrypted (the vault encrypts it).
        public var decrypted: Bool
        /// The name asked for, when the key was another identity's already and went to that identity instead.
        public var linkedFrom: String?
    }

    /// Moves the private key at `path` into the vault under identity `name` (created, or its key replaced), in
    /// the class the policy names for how the key is used, keeping one copy only. An encrypted key is opened with
    /// its passphrase (from `keyPassphrase`) and stored unencrypted: inside the vault a second layer whose
    /// passphrase sat beside it would protect nothing, and every use would pay its bcrypt rounds again. A key sshelf
    /// cannot open itself (a cipher it does not know) is kept encrypted with its passphrase beside it; a wrong
    /// passphrase stores nothing. The public key comes from the key itself or `PATH.pub`.
    /// One key, one identity: a key another identity holds goes to that identity (the name asked for is not made; the
    /// holder keeps the stricter agent options of the two), and is refused when the name is an identity of its own.
    /// `adjust` sets the record's other fields (the agent's options) before it is saved.
    public static func importKey(
        named name: String, from path: String, workspace: Workspace, store: Store,
        vaultPassphrase: () throws -> SecretBytes,
        keyPassphrase: () throws -> SecretBytes,
        adjust: (inout Identity) throws -> Void = { _ in }
    ) throws -> Imported {
        var file: SecretBytes
        do { file = try RegularFile.readSecret(path) } catch {
            throw ShelfError(
                error.kind == .missing ? .notFound : .invalid, Display.safe(error.description),
                hint: "a private key is a plain file of at most 1 MiB, e.g. ~/.ssh/id_ed25519")
        }
        guard let inspection = OpenSSHKey.inspect(file) else {
            throw ShelfError(.invalid, "\(Display.safe(path)) is not a private key in OpenSSH or PEM format")
        }
        var publicKey = inspection.publicKey
        // The .pub beside the key gives the public key of a PEM file, and the comment of any key (so that
        // `identity show` prints the line ssh-keygen wrote): taken when it holds the same key.
        if let bytes = try? RegularFile.read(path + ".pub", limit: 64 * 1024) {
            let line =
                String(decoding: bytes, as: UTF8.self).split(separator: "\n").first
                .map { $0.trimmingSpaces() } ?? ""
            let key = line.split(separator: " ").prefix(2).joined(separator: " ")
            if !key.isEmpty, publicKey == nil || publicKey == key {
                publicKey = Validation.controlCharacterProblem(line) == nil ? line : key
            }
        }
        // Before any passphrase is asked: refused at once when the name is an identity of its own and another holds
        // the key, and the vault unlocked for the classes the key will take (the import checks both again, in its
        // transaction).
        let planned = try store.read { store -> (key: AccessibilityClass, passphrase: AccessibilityClass) in
            let identities = try store.identities()
            let named = identities.first { $0.name == name }
            let holder = publicKey.flatMap { IdentityKeys.holder(of: $0, among: identities, except: named?.id) }
            if let holder, let publicKey, named != nil { throw keyTaken(by: holder, publicKey) }
            let id = holder?.id ?? named?.id ?? UUID()
            return keyClasses(for: id, hosts: try store.hosts(), rules: try store.forwardRules())
        }
        let vault = try VaultAccess.open(workspace, create: true)
        try VaultAccess.unlockIfNeeded(vault, for: [planned.key, planned.passphrase], passphrase: vaultPassphrase)
        let passphrase = inspection.encrypted ? try keyPassphrase() : nil
        var decrypted = false
        if let passphrase, !passphrase.isEmpty {
            switch SSHPrivateKey.fromKeyFile(file, passphrase: passphrase) {
            case .success(let key):
                let comment = publicKey.map { $0.split(separator: " ").dropFirst(2).joined(separator: " ") } ?? ""
                file = key.withComment(comment.isEmpty ? key.comment : comment).openSSHFile()
                decrypted = true
            case .failure(let problem) where problem.wrongPassphrase:
                throw ShelfError(
                    .invalid, "the passphrase does not open \(Display.safe(path)); nothing was stored",
                    hint: "check it (ssh-keygen -y -f \(Display.safe(path)) asks for it too) and import again")
            case .failure:
                break  // a format sshelf cannot open itself: kept encrypted, the passphrase beside it
            }
        }
        let keepPassphrase = !decrypted && (passphrase.map { !$0.isEmpty } ?? false)
        var keyType: KeyType? = nil
        // A PEM key without a .pub beside it: its public key is computed from the key itself.
        if publicKey == nil, !inspection.encrypted || decrypted,
            case .success(let key) = SSHPrivateKey.fromKeyFile(file, passphrase: nil)
        {
            publicKey = key.withComment(name).publicLine
            keyType = key.algorithm.keyType
        } else {
            let typeName = inspection.keyType ?? publicKey.map { String($0.prefix { $0 != " " }) } ?? ""
            keyType =
                typeName.contains("ed25519")
                ? .ed25519 : typeName.contains("ecdsa") ? .ecdsa : typeName.contains("rsa") ? .rsa : nil
        }
        let material = KeyToImport(
            file: file, publicKey: publicKey, keyType: keyType, passphrase: keepPassphrase ? passphrase : nil)
        let imported = try importKey(
            material, as: .named(name), vault: vault, store: store,
            unlock: { try VaultAccess.unlockIfNeeded(vault, for: $0, passphrase: vaultPassphrase) }, adjust: adjust)
        return Imported(
            identity: imported.identity, format: inspection.format.rawValue, keyClass: imported.keyClass,
            foundPublicKey: publicKey != nil, decrypted: decrypted, linkedFrom: imported.linkedFrom)
    }

    /// A new ed25519 identity whose private key exists only in the vault; returns it and its public key line.
    public static func generate(
        named name: String, comment: String?, workspace: Workspace, store: Store,
        vaultPassphrase: () throws -> SecretBytes,
        adjust: (inout Identity) throws -> Void = { _ in }
    ) throws -> (identity: Identity, publicKey: String) {
        if try store.identities().contains(where: { $0.name == name }) {
            throw ShelfError(
                .usage, "an identity named '\(Display.safe(name))' exists already",
                hint: "choose another name, or 'sshelf identity import' to replace its key")
        }
        var identity = Identity(name: name, keyType: .ed25519)
        try adjust(&identity)
        let keyClass = ClassPolicy.accessibility(for: .identityPrivateKey, readAt: .interactive)
        let vault = try VaultAccess.open(workspace, create: true)
        try VaultAccess.unlockIfNeeded(vault, for: [keyClass], passphrase: vaultPassphrase)
        let (privateKey, publicKey) = OpenSSHKey.generateEd25519(comment: comment ?? name)
        try vault.saveIdentityPrivateKey(privateKey, identityID: identity.id, class: keyClass)
        identity.publicKey = publicKey
        identity.privateKeyRef = .identityPrivateKey(identity.id)
        try save(identity, in: store)
        return (identity, publicKey)
    }
}
