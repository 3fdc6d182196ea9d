// AutostartCredentials: when a rule is marked autostart, which of its host's credentials only open while the vault
// session is unlocked (whenUnlocked…), so a tunnel started by `forward up` would stop logging in after the idle
// timeout — what `forward add|edit --autostart` offers to move to the class unattended logins read.
import FoundationEssentials
import ShelfCore
import ShelfStore
import ShelfVault

public enum AutostartCredentials {
    public struct Item: Sendable, Equatable {
        public var key: ReferenceKey
        public var stored: AccessibilityClass
        /// "the password of host 'db'", "the private key of identity 'deploy'".
        public var what: String
    }

    /// The class `forward up` reads after one `sshelf vault unlock` per login, whatever the idle timeout.
    public static var unattendedClass: AccessibilityClass { LockedCredential.unattendedClass }

    /// The host's stored credentials kept in a class that locks with the session's idle timeout; empty without a
    /// vault, or when the vault has no passphrase (then every class opens at any time).
    public static func toMove(hostID: UUID, workspace: Workspace, store: Store) -> [Item] {
        guard Vault.exists(at: workspace.locations),
            let vault = try? VaultAccess.open(workspace.warning(to: { _ in }), create: false), vault.hasPassphrase,
            let items = try? vault.items(), let host = try? store.host(id: hostID)
        else { return [] }
        var wanted: [(ReferenceKey, String)] = [
            (.hostPassword(hostID), "the password of host '\(host.name)'"),
            (.hostRemember(hostID), "the remembered-password mark of host '\(host.name)'"),
        ]
        if let identityID = host.identityID,
            let identity = (try? store.identities())?.first(where: { $0.id == identityID })
        {
            wanted.append((.identityPrivateKey(identityID), "the private key of identity '\(identity.name)'"))
            wanted.append((.identityPassphrase(identityID), "the key passphrase of identity '\(identity.name)'"))
        }
        let classes = Dictionary(items.map { ($0.key, $0.knownClass) }) { first, _ in first }
        return wanted.compactMap { key, what in
            guard let stored = classes[key.rawValue] ?? nil, stored.unlockScope == .whileActive else { return nil }
            return Item(key: key, stored: stored, what: what)
        }
    }
}
