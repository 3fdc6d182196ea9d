// CredentialSyncChoices: which vault items' classes the user chose (`sshelf vault set-class`), remembered in the
// store's device-local settings (never synced), so the credential track never moves them: a class the user picked
// is a promise (…ThisDeviceOnly: this item never leaves this device), a class from the default table is not.
import FoundationEssentials
import ShelfCore
import ShelfStore
import ShelfVault

public enum ChosenClass {
    static func settingKey(_ key: ReferenceKey) -> String { "vault.chosen-class.\(key.rawValue)" }

    /// Remembers that the user chose `accessibility` for `key`. The choice outlives the item (a key set again
    /// under the same name keeps it), which errs on the side of keeping a credential on this device.
    public static func record(_ key: ReferenceKey, _ accessibility: AccessibilityClass, store: Store) throws {
        try store.write { try $0.setSetting(settingKey(key), accessibility.rawValue) }
    }

    /// The class the user chose for `key`, or nil when its class came from the default table (ClassPolicy).
    public static func chosen(_ key: ReferenceKey, store: Store) throws -> AccessibilityClass? {
        try store.setting(settingKey(key)).flatMap(AccessibilityClass.init(rawValue:))
    }
}
