// VaultSession: "unlocked" as a property of the user's login session, not of one process. An unlock in any sshelf
// process puts the whenUnlocked class keys, and a session record (last use, idle timeout), in the kernel user keyring;
// every process of this user then reads them until `vault lock`, the idle timeout (refreshed on use) or logout.
// The idle timeout is checked on the vault's clock (a test moves it) and enforced by the kernel's key expiry too, so
// the keys go even when no sshelf process runs. Also the state `vault status`, the TUI and the agent show.
import FoundationEssentials
import ShelfCore

/// What `vault status`, the TUI and the agent show: whether the session is unlocked, and for how long.
public struct VaultSessionState: Sendable, Equatable, Codable {
    public enum State: String, Sendable, Codable {
        /// The vault has no passphrase: every class opens with the device key alone.
        case noPassphrase = "no passphrase"
        /// Every class opens, for every sshelf process of this user (or only this one, without the keyring).
        case unlocked
        /// whenUnlocked items are locked (idle timeout, or a passphrase change elsewhere); afterFirstUnlock ones open.
        case afterFirstUnlockOnly = "afterFirstUnlock only"
        case locked
    }

    public var state: State
    /// True when the unlock is shared by every process of this user (kernel keyring), false when it lives in this
    /// process only.
    public var shared: Bool
    /// The session's idle timeout: set by the unlock that started it (else this process's setting).
    public var idleSeconds: Int
    /// Seconds before whenUnlocked items lock unless something uses them; nil unless `unlocked`.
    public var secondsLeft: Int?

    /// "unlocked (14 min left)", "locked", … — for a status line.
    public var summary: String {
        switch state {
        case .unlocked: secondsLeft.map { "unlocked (\(Self.duration($0)) left)" } ?? "unlocked"
        case .afterFirstUnlockOnly: "afterFirstUnlock items only (idle)"
        case .noPassphrase, .locked: state.rawValue
        }
    }

    /// "14 min", "45 s", "2 h 5 min".
    public static func duration(_ seconds: Int) -> String {
        if seconds < 60 { return "\(max(0, seconds)) s" }
        let minutes = (seconds + 59) / 60
        if minutes < 60 { return "\(minutes) min" }
        return minutes % 60 == 0 ? "\(minutes / 60) h" : "\(minutes / 60) h \(minutes % 60) min"
    }
}

/// Tells a long-running process (the TUI, sync's status) when the session's state changed — an unlock or lock in
/// any process, the idle timeout: call `changed()` from a clock tick; it answers the new state only when it differs
/// from the last one seen (time left alone does not count as a change).
public final class VaultSessionWatch: @unchecked Sendable {
    private let vault: Vault
    private let lock = Lock()
    private var last: VaultSessionState?

    public init(vault: Vault) { self.vault = vault }

    public func changed() -> VaultSessionState? {
        let now = vault.session()
        return lock.withLock {
            defer { last = now }
            guard let last else { return now }
            return last.state != now.state || last.shared != now.shared ? now : nil
        }
    }
}

/// The session record kept in the keyring beside the class keys: not a secret, only when the session was last used
/// (the vault clock's Unix time) and its idle timeout.
struct SessionRecord: Equatable {
    var lastUse: Double
    var idleSeconds: Int

    var encoded: [UInt8] { Array("1 \(lastUse) \(idleSeconds)".utf8) }

    init(lastUse: Double, idleSeconds: Int) {
        self.lastUse = lastUse
        self.idleSeconds = idleSeconds
    }

    init?(_ bytes: [UInt8]) {
        let parts = String(decoding: bytes, as: UTF8.self).split(separator: " ")
        guard parts.count == 3, parts[0] == "1", let last = Double(parts[1]), last.isFinite,
            let idle = Int(parts[2]), idle >= 0
        else { return nil }
        self.init(lastUse: last, idleSeconds: idle)
    }

    /// Seconds left at `now`; the clock going back counts as no time passed.
    func secondsLeft(at now: Double) -> Double { Double(idleSeconds) - max(0, now - lastUse) }
}

extension Vault {
    var sessionDescription: String { "sshelf:\(idText):session" }

    /// The idle timeout this process starts a session with (`SSHELF_VAULT_IDLE_SECONDS`).
    var idleSeconds: Int {
        let (seconds, attoseconds) = options.idleTimeout.components
        return Int(max(0, seconds)) + (attoseconds > 0 ? 1 : 0)
    }

    private var nowSeconds: Double { options.clock.now().timeIntervalSince1970 }

    // MARK: caller holds the mutex

    /// The session record, if a session is active (an expired one is ended here, its keys wiped).
    func activeSessionHoldingMutex() -> SessionRecord? {
        guard keyring.isAvailable,
            let bytes = keyring.loadPayload(description: sessionDescription, maximum: 64),
            let record = SessionRecord(bytes)
        else { return nil }
        guard record.secondsLeft(at: nowSeconds) > 0 else {
            endSessionHoldingMutex()
            return nil
        }
        return record
    }

    /// A whenUnlocked class key from the session; `use` refreshes the idle timeout (for every process).
    func sessionKeyHoldingMutex(_ accessibility: AccessibilityClass, use: Bool) -> SecretBytes? {
        guard let record = activeSessionHoldingMutex(),
            let key = keyring.load(description: keyringDescription(accessibility), length: Sodium.keyLength)
        else { return nil }
        // At most once a second: a connect reads several items, and each refresh is a few system calls.
        if use, nowSeconds - record.lastUse >= 1 { refreshSessionHoldingMutex(record.idleSeconds) }
        return key
    }

    /// Starts (or renews) the session with these whenUnlocked class keys; false when the keyring refused them.
    func startSessionHoldingMutex(_ keys: [(AccessibilityClass, SecretBytes)]) -> Bool {
        guard keyring.isAvailable else { return false }
        let timeout = UInt32(clamping: idleSeconds)
        for (accessibility, key) in keys
        where !keyring.store(key, description: keyringDescription(accessibility), timeoutSeconds: timeout) {
            endSessionHoldingMutex()
            return false
        }
        let record = SessionRecord(lastUse: nowSeconds, idleSeconds: idleSeconds)
        let stored = record.encoded.withUnsafeBytes {
            keyring.store($0, description: sessionDescription, timeoutSeconds: timeout)
        }
        if !stored { endSessionHoldingMutex() }
        return stored
    }

    private func refreshSessionHoldingMutex(_ idle: Int) {
        let record = SessionRecord(lastUse: nowSeconds, idleSeconds: idle)
        let timeout = UInt32(clamping: idle)
        _ = record.encoded.withUnsafeBytes {
            keyring.store($0, description: sessionDescription, timeoutSeconds: timeout)
        }
        for accessibility in AccessibilityClass.allCases where accessibility.unlockScope == .whileActive {
            keyring.setTimeout(description: keyringDescription(accessibility), timeoutSeconds: timeout)
        }
    }

    /// Wipes the whenUnlocked class keys and the record from the keyring: the idle lock, for every process.
    func endSessionHoldingMutex() {
        for accessibility in AccessibilityClass.allCases where accessibility.unlockScope == .whileActive {
            keyring.remove(description: keyringDescription(accessibility))
        }
        keyring.remove(description: sessionDescription)
    }

    // MARK: public

    /// The session's state now. Looking is not using: it never refreshes the idle timeout.
    public func session() -> VaultSessionState { withMutex { sessionHoldingMutex() } }

    func sessionHoldingMutex() -> VaultSessionState {
        relockIfIdleHoldingMutex()
        let hasPassphrase = (try? passphraseParameters()) != nil
        guard hasPassphrase else {
            return VaultSessionState(state: .noPassphrase, shared: keyring.isAvailable, idleSeconds: idleSeconds)
        }
        if let record = activeSessionHoldingMutex(),
            keyring.load(description: keyringDescription(.whenUnlockedThisDeviceOnly), length: Sodium.keyLength) != nil
        {
            let left = Int(record.secondsLeft(at: nowSeconds).rounded(.up))
            return VaultSessionState(
                state: .unlocked, shared: true, idleSeconds: record.idleSeconds,
                secondsLeft: left)
        }
        if processKeys[.whenUnlockedThisDeviceOnly] != nil {
            let elapsed = options.clock.instant() - lastActivity
            let left = (options.idleTimeout - elapsed).components.seconds
            return VaultSessionState(
                state: .unlocked, shared: false, idleSeconds: idleSeconds,
                secondsLeft: Int(max(0, left)))
        }
        let afterFirst =
            processKeys[.afterFirstUnlockThisDeviceOnly] != nil
            || keyring.load(
                description: keyringDescription(.afterFirstUnlockThisDeviceOnly),
                length: Sodium.keyLength) != nil
        return VaultSessionState(
            state: afterFirst ? .afterFirstUnlockOnly : .locked,
            shared: keyring.isAvailable, idleSeconds: idleSeconds)
    }

    /// Whether an item of `accessibility` can be read right now (without asking anyone). Does not count as use.
    public func canRead(_ accessibility: AccessibilityClass) -> Bool {
        withMutex {
            if case .key = (try? classKey(accessibility, use: false)) ?? .missing { return true }
            return false
        }
    }
}
