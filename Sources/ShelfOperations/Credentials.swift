// Credentials: store-and-vault work on credentials — a host's password kept in the class its use needs (one copy,
// the host record pointing at it), and the vault audit, which needs to know from the store when each credential
// is read and whether this device syncs credentials.
import Foundation
import ShelfCore
import ShelfStore
import ShelfSync
import ShelfVault

public enum CredentialOperations {
    /// Stores `password` (asked through `password` after the vault is unlocked) for the host in the class the
    /// policy names for when it is read (interactive, or unattended for a host with autostart forwards), drops
    /// copies in other classes, and points the host record at it. Returns the class.
    public static func storeHostPassword(_ hostID: UUID, workspace: Workspace, store: Store,
                                         vaultPassphrase: () throws -> SecretBytes,
                                         password: () throws -> SecretBytes) throws -> AccessibilityClass {
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
            return findings.isEmpty ? [AuditFinding(rule: "loose-permissions", subject: nil, message: error.message)] : findings
        }
    }
}
