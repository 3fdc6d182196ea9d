// IdentityImport: the one place a private key becomes an identity's — `identity import` (a key file) and the
// agent's ssh-add both end here. One store transaction holds the whole decision: the identity that holds the key
// already (one key, one identity), or the one named, or a new one; the classes its key and passphrase take (the one
// choice: ClassPolicy by how its hosts use it, so a new identity's key is device-only); the vault items; the record.
// A second process importing the same key waits for the first's transaction (BEGIN IMMEDIATE) and finds its identity.
import FoundationEssentials
import ShelfCore
import ShelfStore
import ShelfSystem
import ShelfVault

/// A private key ready to store: the file's bytes (decrypted when sshelf could open it) and what is known of it.
public struct KeyToImport: Sendable {
    public var file: SecretBytes
    /// The public key line (with its comment), when known.
    public var publicKey: String?
    public var keyType: KeyType?
    /// The passphrase of a file sshelf keeps encrypted (a cipher it cannot open itself), stored beside it.
    public var passphrase: SecretBytes?

    public init(file: SecretBytes, publicKey: String?, keyType: KeyType?, passphrase: SecretBytes? = nil) {
        self.file = file
        self.publicKey = publicKey
        self.keyType = keyType
        self.passphrase = passphrase
    }

    /// A key ssh-add gave the agent.
    public init(_ key: SSHPrivateKey) {
        self.init(file: key.openSSHFile(), publicKey: key.publicLine, keyType: key.algorithm.keyType)
    }
}

/// Whose key it becomes.
public enum KeyImportTarget: Sendable {
    /// `identity import NAME`: the identity NAME (made, or its key replaced); a key another identity holds goes to
    /// that one instead (NAME is not made; the holder takes the stricter agent options), and is refused when NAME is
    /// an identity of its own.
    case named(String)
    /// ssh-add: the identity holding the key, left as it is when its key is in the vault already; else a new
    /// identity named after the key's comment (made unique). The agent options apply to a new identity only.
    case agentKey(comment: String)
}

extension IdentityOperations {
    /// What `importKey(_:as:…)` did.
    public struct KeyImport: Sendable {
        public var identity: Identity
        public var keyClass: AccessibilityClass
        /// The name asked for, when the key was another identity's already and went to that identity instead.
        public var linkedFrom: String?
        /// A new identity was made.
        public var created: Bool
        /// The vault held the identity's key already and nothing was written (the agent's "serves again").
        public var alreadyStored: Bool
    }

    /// The classes an identity's key and passphrase are stored in, by how its hosts use it — the one choice, for
    /// every way a key comes in. New secrets are device-only (ClassPolicy's table).
    public static func keyClasses(for identityID: UUID, hosts: [ShelfCore.Host], rules: [PortForwardRule])
        -> (key: AccessibilityClass, passphrase: AccessibilityClass)
    {
        let moment = ClassPolicy.readMoment(identity: identityID, hosts: hosts, forwardRules: rules)
        return (
            ClassPolicy.accessibility(for: .identityPrivateKey, readAt: moment),
            ClassPolicy.accessibility(for: .identityPassphrase, readAt: moment)
        )
    }

    /// Stores `key` as the identity `target` names, in one store transaction (see the file's header). A vault class
    /// that turns out locked rolls the transaction back: `unlock` is called once with the classes, outside it, and
    /// the import runs again. `adjust` sets the record's other fields (the agent's options) before it is saved.
    public static func importKey(
        _ key: KeyToImport, as target: KeyImportTarget, vault: Vault, store: Store,
        unlock: (Set<AccessibilityClass>) throws -> Void,
        adjust: (inout Identity) throws -> Void = { _ in }
    ) throws -> KeyImport {
        var unlocked = false
        while true {
            do {
                return try store.write { store in
                    try importHolding(key, as: target, vault: vault, store: store, adjust: adjust)
                }
            } catch let error as VaultError where error.kind == .locked && !unlocked {
                unlocked = true
                let identityFamilies: Set<ItemFamily> = [.identityPrivateKey, .identityPassphrase]
                try unlock(Set(ClassPolicy.table.filter { identityFamilies.contains($0.family) }.map(\.accessibility)))
            }
        }
    }

    /// The body of `importKey(_:as:…)`, inside the store's write transaction.
    static func importHolding(
        _ key: KeyToImport, as target: KeyImportTarget, vault: Vault, store: Store,
        adjust: (inout Identity) throws -> Void
    ) throws -> KeyImport {
        let identities = try store.identities()
        var identity: Identity
        var linkedFrom: String? = nil
        var created = false
        switch target {
        case .named(let name):
            let named = identities.first { $0.name == name }
            identity = named ?? Identity(name: name)
            created = named == nil
            if let line = key.publicKey,
                let holder = IdentityKeys.holder(of: line, among: identities, except: identity.id)
            {
                guard named == nil else { throw keyTaken(by: holder, line) }
                identity = holder
                linkedFrom = name
                created = false
            }
        case .agentKey(let comment):
            if let line = key.publicKey, let holder = IdentityKeys.holder(of: line, among: identities) {
                identity = holder
                if let stored = holder.privateKeyRef, let accessibility = try vault.storedClass(of: stored) {
                    return KeyImport(
                        identity: holder, keyClass: accessibility, linkedFrom: nil, created: false,
                        alreadyStored: true)
                }
            } else {
                identity = Identity(name: uniqueName(for: comment, among: identities))
                created = true
            }
        }
        if let keyType = key.keyType { identity.keyType = keyType }
        if linkedFrom == nil, let line = key.publicKey { identity.publicKey = line }
        let (hosts, rules) = (try store.hosts(), try store.forwardRules())
        let (keyClass, passphraseClass) = keyClasses(for: identity.id, hosts: hosts, rules: rules)
        try vault.saveIdentityPrivateKey(key.file, identityID: identity.id, class: keyClass)
        let keepPassphrase = key.passphrase.map { !$0.isEmpty } ?? false
        if let passphrase = key.passphrase, keepPassphrase {
            try vault.saveIdentityPassphrase(passphrase, identityID: identity.id, class: passphraseClass)
        }
        // One copy, in the class the policy names: drop older copies (and a passphrase no longer needed).
        for other in AccessibilityClass.allCases {
            if other != keyClass { try vault.clearIdentityPrivateKey(identity.id, class: other) }
            if other != passphraseClass || !keepPassphrase {
                try vault.clearIdentityPassphrase(identity.id, class: other)
            }
        }
        identity.privateKeyRef = .identityPrivateKey(identity.id)
        identity.passphraseRef = keepPassphrase ? .identityPassphrase(identity.id) : nil
        identity.keyFile = ""
        identity.updatedAt = Date()
        switch target {
        case .named where linkedFrom != nil:
            var asked = identity
            try adjust(&asked)
            (identity.confirmEachUse, identity.agentLifetime) = IdentityKeys.stricter(identity, asked)
        case .named:
            try adjust(&identity)
        case .agentKey:
            if created { try adjust(&identity) }
        }
        try save(identity, in: store)
        return KeyImport(
            identity: identity, keyClass: keyClass, linkedFrom: linkedFrom, created: created, alreadyStored: false)
    }

    /// A name for a key that came with only a comment: the comment made safe (or `agent-key`), numbered when taken.
    static func uniqueName(for comment: String, among identities: [Identity]) -> String {
        var base = String(Display.safe(comment).replacing("?", with: "").trimmingSpaces().prefix(64))
        if Validation.nameProblem(base) != nil { base = "agent-key" }
        let taken = Set(identities.map(\.name))
        var name = base
        var number = 2
        while taken.contains(name) {
            name = "\(base)-\(number)"
            number += 1
        }
        return name
    }
}
