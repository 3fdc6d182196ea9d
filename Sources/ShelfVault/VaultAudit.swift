// VaultAudit: the Fortify-style rule set behind `sshelf vault audit` — items weaker than their use needs,
// syncable items while credential sync is off, `always` items, no passphrase, weak stretching, loose files.
import FoundationEssentials
import ShelfCore
import ShelfSystem

public struct AuditFinding: Sendable, Codable, Equatable {
    /// Stable rule name for scripts: no-passphrase, weak-passphrase-stretch, loose-permissions, always-class,
    /// weaker-than-use, syncable-while-sync-off, passcode-class-without-passphrase, unknown-class, unlock-every-ssh.
    public var rule: String
    /// The item or file concerned, when there is one.
    public var subject: String?
    public var message: String

    public init(rule: String, subject: String?, message: String) {
        self.rule = rule
        self.subject = subject
        self.message = message
    }
}

public enum VaultAudit {
    /// Files and folders of the vault that group or others can access. Works without opening the vault, which
    /// refuses to open loose files.
    public static func filePermissions(_ locations: DataLocations) -> [AuditFinding] {
        let paths = [
            locations.dataDirectory, locations.stateDirectory, locations.vault, locations.vault + "-wal",
            locations.vault + "-shm", locations.deviceKey,
        ]
        return paths.compactMap { path in
            guard let mode = PrivateFiles.mode(of: path), mode & 0o077 != 0 else { return nil }
            return AuditFinding(
                rule: "loose-permissions", subject: path,
                message:
                    "\(path) is accessible by other users (mode \(String(mode & 0o777, radix: 8))); run: chmod go-rwx "
                    + "\(path)")
        }
    }
}

extension Vault {
    /// `needs` says when each credential is read (from the config store: a host with autostart forwards
    /// needs its credentials `.unattended`). Keys not listed are checked only by the class-independent rules.
    public func audit(needs: [ReferenceKey: ReadMoment], credentialSyncEnabled: Bool) throws(VaultError)
        -> [AuditFinding]
    {
        let status = try status()
        let items = try items()
        var findings = VaultAudit.filePermissions(locations)
        if !status.hasPassphrase {
            findings.append(
                AuditFinding(
                    rule: "no-passphrase", subject: nil,
                    message:
                        "the vault has no passphrase: class keys are wrapped by the device key alone, so anyone who "
                        + "can read your files can read every credential; set one with 'sshelf vault passwd'"))
        } else if status.weakStretch {
            findings.append(
                AuditFinding(
                    rule: "weak-passphrase-stretch", subject: nil,
                    message: "the passphrase is stretched with parameters below Argon2id MODERATE "
                        + "(\(status.passphraseStretch ?? "")); run 'sshelf vault passwd' to re-stretch it"))
        }
        for item in items {
            guard let stored = item.knownClass else {
                findings.append(
                    AuditFinding(
                        rule: "unknown-class", subject: item.key,
                        message: "\(item.key) is stored under an unknown class '\(item.accessibility)'"))
                continue
            }
            if stored.isRefusedOnWrite {
                findings.append(
                    AuditFinding(
                        rule: "always-class", subject: item.key,
                        message:
                            "\(item.key) is stored as '\(stored)', readable without any passphrase; store it again "
                            + "with 'sshelf vault set-password' or 'sshelf identity import'"))
            }
            if stored.needsPassphrase && !status.hasPassphrase {
                findings.append(
                    AuditFinding(
                        rule: "passcode-class-without-passphrase", subject: item.key,
                        message: "\(item.key) is whenPasscodeSetThisDeviceOnly but the vault has no passphrase"))
            }
            if let key = ReferenceKey(item.key), let moment = needs[key], !ClassPolicy.isReadable(stored, at: moment) {
                findings.append(
                    AuditFinding(
                        rule: "weaker-than-use", subject: item.key,
                        message: "\(item.key) is needed "
                            + (moment == .unattended
                                ? "by an autostarted forward, when nobody is there to type the passphrase"
                                : "interactively")
                            + " but stored as '\(stored)', which cannot be read then; store it again so it gets "
                            + "\(ClassPolicy.accessibility(for: ItemFamily(key) ?? .hostPassword, readAt: moment))"))
            }
            if stored.mayLeaveDevice && !credentialSyncEnabled {
                findings.append(
                    AuditFinding(
                        rule: "syncable-while-sync-off", subject: item.key,
                        message:
                            "\(item.key) is stored as '\(stored)', which may leave this device, but credential sync "
                            + "is off; store it as …ThisDeviceOnly"))
            }
        }
        findings += unlockAtEveryUse(items, hasPassphrase: status.hasPassphrase)
        return findings
    }

    /// An idle timeout this short locks the session between almost any two uses: every ssh through the ssh_config
    /// bridge to a host whose key is `whenUnlocked…` then stops to ask for the vault passphrase (docs/VAULT.md, "When
    /// ssh needs a locked key").
    func unlockAtEveryUse(_ items: [VaultItemInfo], hasPassphrase: Bool) -> [AuditFinding] {
        let idle = options.idleTimeout.components.seconds
        guard hasPassphrase, idle <= VaultAudit.unlockEveryUseSeconds else { return [] }
        let keys = items.filter { item in
            ReferenceKey(item.key).flatMap(ItemFamily.init) == .identityPrivateKey
                && item.knownClass?.unlockScope == .whileActive
        }.map(\.key)
        guard !keys.isEmpty else { return [] }
        return [
            AuditFinding(
                rule: "unlock-every-ssh", subject: nil,
                message: "the vault session locks after \(idle) s without use (SSHELF_VAULT_IDLE_SECONDS), so nearly "
                    + "every ssh through the ssh_config bridge asks for the vault passphrase for these keys: "
                    + keys.joined(separator: ", ") + "; keep the default (900 s), or move a key that must not ask with "
                    + "'sshelf vault set-class KEY afterFirstUnlockThisDeviceOnly' (open until logout)")
        ]
    }
}

extension VaultAudit {
    /// An idle timeout at or below this many seconds counts as asking at every use.
    public static let unlockEveryUseSeconds: Int64 = 60
}
