// VaultStatus: what `vault status` reports — passphrase, keyring or its fallback, and per class whether this
// process can read it right now. Never a value.
import FoundationEssentials

public struct VaultStatus: Sendable, Codable, Equatable {
    public struct ClassState: Sendable, Codable, Equatable {
        public var accessibility: String
        /// "readable", "locked", or "absent" (no class key: whenPasscodeSet… without a passphrase).
        public var state: String
        public var items: Int
    }

    public var vaultPath: String
    public var deviceKeyPath: String
    public var hasPassphrase: Bool
    /// "argon2id opslimit=3 memlimit=268435456", or nil without a passphrase.
    public var passphraseStretch: String?
    public var weakStretch: Bool
    /// "kernel", "off" (forced by SSHELF_VAULT_NO_KEYRING=1) or "refused".
    public var keyring: String
    /// One sentence for people: where afterFirstUnlock keys are kept.
    public var keyringDetail: String
    public var classes: [ClassState]
    public var itemCount: Int
    /// The vault session of this login: unlocked or not, and the time left before the idle timeout.
    public var session: VaultSessionState
}

extension Vault {
    public func status() throws(VaultError) -> VaultStatus {
        try run("read the vault status") {
            let stretch = try passphraseParameters()
            var counts: [String: Int] = [:]
            for row in try db.query("SELECT class, count(*) FROM items GROUP BY class") {
                counts[row[0].text ?? ""] = Int(row[1].int ?? 0)
            }
            var classes: [VaultStatus.ClassState] = []
            for accessibility in AccessibilityClass.allCases {
                let state: String
                switch try classKey(accessibility, use: false) {
                case .key: state = "readable"
                case .locked: state = "locked"
                case .missing: state = "absent"
                case .damaged: state = "damaged"
                }
                if state == "absent" && counts[accessibility.rawValue] == nil && accessibility.isRefusedOnWrite {
                    continue
                }
                classes.append(
                    .init(
                        accessibility: accessibility.rawValue, state: state,
                        items: counts[accessibility.rawValue] ?? 0))
            }
            let (mode, detail): (String, String)
            switch keyring.availability {
            case .available:
                (mode, detail) = (
                    "kernel",
                    "an unlock is shared by all your sshelf processes through the kernel user keyring: whenUnlocked "
                        + "keys until 'sshelf vault lock' or the idle timeout, afterFirstUnlock keys until reboot, "
                        + "logout, 'sshelf vault lock' or \(options.keyringTimeoutSeconds / 3600) h"
                )
            case .switchedOff:
                (mode, detail) = (
                    "off",
                    "the kernel keyring is switched off (\(VaultOptions.noKeyringVariable)=1): an unlock stays in the "
                        + "process that was given the passphrase, and no key is ever written to a file"
                )
            case .refused(let reason):
                (mode, detail) = (
                    "refused",
                    "the kernel refused keyctl (\(reason)), as in many containers: an unlock stays in the process "
                        + "that was given the passphrase, and no key is ever written to a file"
                )
            }
            return VaultStatus(
                vaultPath: locations.vault, deviceKeyPath: locations.deviceKey, hasPassphrase: stretch != nil,
                passphraseStretch: stretch.map { "argon2id opslimit=\($0.opsLimit) memlimit=\($0.memLimit)" },
                weakStretch: stretch?.isBelowModerate ?? false, keyring: mode, keyringDetail: detail,
                classes: classes, itemCount: counts.values.reduce(0, +), session: sessionHoldingMutex())
        }
    }
}
