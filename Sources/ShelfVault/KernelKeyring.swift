// KernelKeyring: caches unwrapped class keys — and the vault session's record (VaultSession) — in the Linux kernel
// user keyring (add_key/keyctl), so every process of this user reads them until reboot, logout, `vault lock` or their
// timeout. Where keyctl is refused (containers, seccomp) or switched off, it reports that and the vault keeps keys
// in-process only.
import CKeyringShims
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

struct KernelKeyring {
    // From <linux/keyctl.h>; not exported by Glibc's module.
    private static let userKeyring: Int32 = -4  // KEY_SPEC_USER_KEYRING
    private static let getKeyringID: Int32 = 0  // KEYCTL_GET_KEYRING_ID
    private static let setPermissions: Int32 = 5  // KEYCTL_SETPERM
    private static let unlinkKey: Int32 = 9  // KEYCTL_UNLINK
    private static let searchKey: Int32 = 10  // KEYCTL_SEARCH
    private static let readKey: Int32 = 11  // KEYCTL_READ
    private static let setTimeout: Int32 = 15  // KEYCTL_SET_TIMEOUT
    private static let invalidateKey: Int32 = 21  // KEYCTL_INVALIDATE
    /// Possessor: everything; same user: view, read, search. Same-uid processes can read the device key
    /// anyway, and this lets a process whose session keyring does not link the user keyring find it.
    private static let permissions: UInt = 0x3f00_0000 | 0x0001_0000 | 0x0002_0000 | 0x0008_0000

    enum Availability: Equatable, Sendable {
        case available
        case switchedOff
        case refused(String)
    }

    let availability: Availability

    init(enabled: Bool) {
        guard enabled else {
            availability = .switchedOff
            return
        }
        // Asking for the user keyring's id (creating it if needed) is the cheapest probe that keyctl works.
        let result = cshims_keyctl(Self.getKeyringID, UInt(bitPattern: Int(Self.userKeyring)), 1, 0, 0)
        availability = result >= 0 ? .available : .refused(String(cString: strerror(errno)))
    }

    var isAvailable: Bool { availability == .available }

    /// Adds the key, or replaces the payload of the one with this description. `timeoutSeconds` is at least 1
    /// (the kernel reads 0 as "never").
    func store(_ key: SecretBytes, description: String, timeoutSeconds: UInt32) -> Bool {
        key.withUnsafeBytes { store($0, description: description, timeoutSeconds: timeoutSeconds) }
    }

    func store(_ payload: UnsafeRawBufferPointer, description: String, timeoutSeconds: UInt32) -> Bool {
        guard isAvailable else { return false }
        let id = cshims_add_key("user", description, payload.baseAddress, UInt(payload.count), Self.userKeyring)
        guard id >= 0 else { return false }
        _ = cshims_keyctl(Self.setPermissions, UInt(id), Self.permissions, 0, 0)
        _ = cshims_keyctl(Self.setTimeout, UInt(id), UInt(max(1, timeoutSeconds)), 0, 0)
        return true
    }

    /// Moves the key's expiry to `timeoutSeconds` from now (the idle timeout, refreshed on use).
    func setTimeout(description: String, timeoutSeconds: UInt32) {
        guard isAvailable, let id = serial(of: description) else { return }
        _ = cshims_keyctl(Self.setTimeout, UInt(id), UInt(max(1, timeoutSeconds)), 0, 0)
    }

    /// A payload of any length up to `maximum` bytes (the session record; not a secret).
    func loadPayload(description: String, maximum: Int) -> [UInt8]? {
        guard isAvailable, let id = serial(of: description) else { return nil }
        return payload(serial: id, maximum: maximum)
    }

    /// The payload of the key with this serial; nil once it is invalidated, unlinked everywhere or expired.
    func payload(serial id: Int, maximum: Int) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: maximum)
        let got = buffer.withUnsafeMutableBytes { out in
            cshims_keyctl(Self.readKey, UInt(id), UInt(bitPattern: out.baseAddress), UInt(out.count), 0)
        }
        guard got >= 0, got <= maximum else { return nil }
        return Array(buffer.prefix(got))
    }

    func load(description: String, length: Int) -> SecretBytes? {
        guard isAvailable, let id = serial(of: description) else { return nil }
        let key = SecretBytes(count: length)
        let got = key.withUnsafeMutableBytes { out in
            cshims_keyctl(Self.readKey, UInt(id), UInt(bitPattern: out.baseAddress), UInt(out.count), 0)
        }
        return got == length ? key : nil
    }

    /// Invalidates the key (its payload is gone for every process at once) and unlinks it from the user keyring at
    /// once: an invalidated key stays linked until the kernel's garbage collector runs, and an `add_key` of the same
    /// description before then (a `vault unlock` right after a lock) could update that dead key instead of adding a
    /// live one — the unlock would silently not hold.
    func remove(description: String) {
        guard isAvailable, let id = serial(of: description) else { return }
        _ = cshims_keyctl(Self.invalidateKey, UInt(id), 0, 0, 0)
        _ = cshims_keyctl(Self.unlinkKey, UInt(id), UInt(bitPattern: Int(Self.userKeyring)), 0, 0)
    }

    /// The key's serial, found as every process of this user finds it (a search of the user keyring); nil when no
    /// live key has the description.
    func serial(of description: String) -> Int? {
        let id = description.withCString { text in
            "user".withCString { type in
                cshims_keyctl(
                    Self.searchKey, UInt(bitPattern: Int(Self.userKeyring)), UInt(bitPattern: type),
                    UInt(bitPattern: text), 0)
            }
        }
        return id >= 0 ? id : nil
    }
}
