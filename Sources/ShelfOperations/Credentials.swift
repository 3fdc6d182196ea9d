// Credentials: store-and-vault work on credentials — a host's password kept in the class its use needs (one copy,
// the host record pointing at it), moving an item to another class, and the vault audit, which needs to know from
// the store when each credential is read and whether this device syncs credentials.
import FoundationEssentials
import ShelfCore
import ShelfStore
import ShelfSync
import ShelfVault

public enum CredentialOperations {
    /// Stores `password` (asked through `password` after the vault is unlocked) for the host in the class the
    /// policy names for when it is read (interactive, or unattended for a host with autostart forwards), drops
    /// copies in other classes, and points the host record at it. Returns the class.
    public static func storeHostPassword(
        _ hostID: UUID, workspace: Workspace, store: Store,
        vaultPassphrase: () throws -> SecretBytes,
        password: () throws -> SecretBytes
    ) throws -> AccessibilityClass {
        let moment = ClassPolicy.readMoment(host: hostID, forwardRules: try store.forwardRules(hostID: hostID))
        let accessibility = ClassPolicy.accessibility(for: .hostPassword, readAt: moment)
        let vault = try VaultAccess.open(workspace, create: true)
        try VaultAccess.unlockIfNeeded(vault, for: [accessibility], passphrase: vaultPassphrase)
        let secret = try password()
        guard !secret.isEmpty else { throw ShelfError(.invalid, "empty password; nothing stored") }
        try vault.saveHostPassword(secret, hostID: hostID, class: accessibility)
        for other in AccessibilityClass.allCases where other != accessibility {
            try vault.clearHostPassword(hostID, class: other)
        }
        try store.write { store in
            guard var host = try store.host(id: hostID), host.passwordRef != .hostPassword(hostID) else { return }
            host.passwordRef = .hostPassword(hostID)
            host.updatedAt = Date()
            try store.save(host)
        }
        return accessibility
    }

    /// Removes the host's password from every class of the vault and the host record's pointer to it (a host with no
    /// vault has nothing to remove there). Deleting needs no class key, so a locked vault does not stop it.
    public static func removeHostPassword(_ hostID: UUID, workspace: Workspace, store: Store) throws {
        if FileManager.default.fileExists(atPath: workspace.locations.vault) {
            let vault = try VaultAccess.open(workspace, create: false)
            for accessibility in AccessibilityClass.allCases {
                try vault.clearHostPassword(hostID, class: accessibility)
            }
        }
        try store.write { store in
            guard var host = try store.host(id: hostID), host.passwordRef != nil else { return }
            host.passwordRef = nil
            host.updatedAt = Date()
            try store.save(host)
        }
    }

    /// What moving an item to another class did: the classes, and what the audit now says about the item.
    public struct ClassChange: Sendable {
        public var key: ReferenceKey
        public var from: AccessibilityClass
        public var to: AccessibilityClass
        public var findings: [AuditFinding]
    }

    /// Moves `key` to `target` (same secret, same time), as `sshelf vault set-class` does: through the vault's own
    /// write, so its refusals hold (never an `always…` class; the passcode class only with a passphrase), asking
    /// for the vault passphrase when either class is locked. Afterwards the item is audited like any write: the
    /// findings about it (a class weaker than its use, syncable while credential sync is off) come back. The
    /// store remembers the class as chosen by the user, so credential sync never moves the item (ChosenClass).
    public static func setClass(
        _ key: ReferenceKey, to target: AccessibilityClass, workspace: Workspace, store: Store?,
        vaultPassphrase: () throws -> SecretBytes
    ) throws -> ClassChange {
        try setClass(
            key, to: target, in: try VaultAccess.open(workspace, create: false), workspace: workspace,
            store: store, vaultPassphrase: vaultPassphrase)
    }

    /// The same, in a vault the caller already holds open (the TUI's, unlocked in its process).
    public static func setClass(
        _ key: ReferenceKey, to target: AccessibilityClass, in vault: Vault,
        workspace: Workspace, store: Store?,
        vaultPassphrase: () throws -> SecretBytes
    ) throws -> ClassChange {
        guard let item = try vault.items().first(where: { $0.key == key.rawValue }) else {
            throw ShelfError(.notFound, "the vault holds nothing under \(key)", hint: "see 'sshelf vault list'")
        }
        guard let from = item.knownClass else {
            throw ShelfError(
                .invalid,
                "\(key) is stored under a class this sshelf does not know ('\(Display.safe(item.accessibility))')")
        }
        if target.isRefusedOnWrite {
            throw ShelfError(
                .invalid,
                "refusing to store \(key) as '\(target)': that class is readable by anyone holding the device key, "
                    + "with no passphrase, at any time",
                hint: "use \(AccessibilityClass.whenUnlockedThisDeviceOnly) (read when you connect) or "
                    + "\(AccessibilityClass.afterFirstUnlockThisDeviceOnly) (read by unattended logins "
                    // Without a kernel keyring `vault unlock` opens only its own process: say what works here.
                    + (vault.session().shared
                        ? "after 'sshelf vault unlock')"
                        : "given the vault passphrase when they start: this system keeps no unlock between processes)"))
        }
        if from != target {
            try VaultAccess.unlockIfNeeded(vault, for: [from, target], passphrase: vaultPassphrase)
            guard try vault.reclassify(key, from: from, to: target) else {
                throw ShelfError(
                    .failure, "\(key) changed while it was being moved; nothing was moved",
                    hint: "run the command again")
            }
        }
        // The class is the user's choice from now on: credential sync never moves it (docs/VAULT.md).
        try ChosenClass.record(key, target, store: store ?? Store(path: workspace.locations.store))
        let findings = try audit(workspace, store: store).filter { $0.subject == key.rawValue }
        return ClassChange(key: key, from: from, to: target, findings: findings)
    }

    /// The vault audit: weak classes for how each credential is used, syncable items while credential sync is
    /// off, loose files (also when the vault refuses to open because of them). `store` is nil when there is none.
    public static func audit(_ workspace: Workspace, store: Store?) throws -> [AuditFinding] {
        var needs: [ReferenceKey: ReadMoment] = [:]
        var syncOn = false
        if let store {
            let (hosts, rules) = try store.read { store in (try store.hosts(), try store.forwardRules()) }
            needs = ClassPolicy.needs(hosts: hosts, forwardRules: rules)
            syncOn = try SyncSettings.credentialsEnabled(store)
        }
        do {
            return try VaultAccess.open(workspace, create: false).audit(needs: needs, credentialSyncEnabled: syncOn)
        } catch {
            guard error.kind == .permissions else { throw error }
            let findings = VaultAudit.filePermissions(workspace.locations)
            return findings.isEmpty
                ? [AuditFinding(rule: "loose-permissions", subject: nil, message: error.message)] : findings
        }
    }
}
