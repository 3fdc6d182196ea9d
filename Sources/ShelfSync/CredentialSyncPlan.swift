// CredentialSyncPlan: what turning the credential track on does to this vault's items, before it happens — which
// items travel already (a syncable class), which move to their syncable twin (a device-only class that came from the
// default table), and which stay on this device (a class the user chose, or one with no syncable twin). The track's
// own migration pass moves exactly `moves`, so what `sync enable --credentials` lists is what happens.
import FoundationEssentials
import ShelfCore
import ShelfStore
import ShelfVault

public struct CredentialSyncPlan: Sendable, Equatable {
    public struct Item: Sendable, Equatable {
        public var key: ReferenceKey
        /// The class it is stored in now.
        public var stored: AccessibilityClass
        /// The class it moves to (moves only).
        public var twin: AccessibilityClass?
        /// Stays: the user chose its class (else: its class has no syncable twin, e.g. whenPasscodeSetThisDeviceOnly).
        public var chosen = false
    }

    /// Items already stored in a class that may leave the device.
    public var travels: [Item] = []
    /// Default-class device-only items that move to their syncable twin.
    public var moves: [Item] = []
    /// Device-only items that stay: chosen by the user, or in a class with no twin.
    public var stays: [Item] = []

    /// Whether turning the track on would send anything of this vault.
    public var sendsAnything: Bool { !travels.isEmpty || !moves.isEmpty }

    /// Item families that follow the user to other devices once credential sync is on. Sync's own keys never do.
    static let eligibleFamilies: Set<ReferenceKey.Secret> = [.password, .remember, .privkey, .passphrase]

    /// Reads the item list (no value is read, so a locked vault can be planned) and the user's choices.
    public static func make(vault: Vault, store: Store) throws -> CredentialSyncPlan {
        var plan = CredentialSyncPlan()
        for info in try vault.items() {
            guard let key = ReferenceKey(info.key), !key.isDeviceSecret, eligibleFamilies.contains(key.secret),
                let stored = info.knownClass
            else { continue }
            if stored.mayLeaveDevice {
                plan.travels.append(Item(key: key, stored: stored))
            } else if try ChosenClass.chosen(key, store: store) != nil {
                plan.stays.append(Item(key: key, stored: stored, chosen: true))
            } else if let twin = stored.syncableTwin {
                plan.moves.append(Item(key: key, stored: stored, twin: twin))
            } else {
                plan.stays.append(Item(key: key, stored: stored))
            }
        }
        return plan
    }
}
