// VaultCredentialSource: the connect flow's credentials, read from the vault once a hop's host key was
// verified (every call carries its VerifiedSession). Each read names the class the item is stored under (found
// in the item list, which holds no secrets); a reference with no item here is `notStored` — the "not yet synced
// to this device" case — never a blank; a vault that cannot be read is `unavailable` with the vault's own words.
// Every secret is handed out through the vault's one release call (VaultRelease.swift), which writes the release
// log line (what, by which command, for which hop and its verified key) first; a release that cannot be logged does
// not happen.
import FoundationEssentials
import ShelfCore
import ShelfSSH
import ShelfStore
import ShelfSync
import ShelfVault

public final class VaultCredentialSource: CredentialSource {
    private let workspace: Workspace
    private let store: Store
    private var opened: Result<Vault, VaultError>?
    /// Asks for the vault passphrase when an item is locked; nil where nobody can answer (scripts).
    private let askPassphrase: (() -> SecretBytes?)?
    /// What the release log says released it: connect, exec, forward, tui or copy-id.
    private let releasedBy: String

    /// `store` is the calling thread's connection (to see whether a host has autostart forwards). `vault`, when
    /// given, is a vault opened (and perhaps unlocked) by the caller, shared by several sources.
    public init(
        workspace: Workspace, store: Store, vault: Vault? = nil, releasedBy: String,
        askPassphrase: (() -> SecretBytes?)?
    ) {
        self.workspace = workspace
        self.store = store
        self.releasedBy = releasedBy
        self.askPassphrase = askPassphrase
        opened = vault.map { .success($0) }
    }

    /// Opened on first use only: a connection whose methods need no stored secret never touches the vault.
    private func vault() -> Result<Vault, VaultError> {
        if let opened { return opened }
        let result: Result<Vault, VaultError>
        do { result = .success(try VaultAccess.open(workspace, create: false)) } catch { result = .failure(error) }
        opened = result
        return result
    }

    /// The class `reference` is stored under (nil: not stored here), from the item list.
    func storedClass(_ reference: ReferenceKey) -> Result<AccessibilityClass?, VaultError> {
        switch vault() {
        case .failure(let error) where error.kind == .notInitialized: return .success(nil)
        case .failure(let error): return .failure(error)
        case .success(let vault):
            do {
                guard let info = try vault.items().first(where: { $0.key == reference.rawValue }) else {
                    return .success(nil)
                }
                guard let known = info.knownClass else {
                    return .failure(
                        VaultError(.unavailable, "\(reference) is stored under a class this sshelf does not know"))
                }
                return .success(known)
            } catch {
                return .failure(error)
            }
        }
    }

    public func privateKey(for reference: ReferenceKey, on hop: VerifiedSession) -> ShelfSSH.CredentialLookup {
        lookup(reference, for: hop)
    }
    public func keyPassphrase(for reference: ReferenceKey, on hop: VerifiedSession) -> ShelfSSH.CredentialLookup {
        lookup(reference, for: hop)
    }
    public func password(for reference: ReferenceKey, on hop: VerifiedSession) -> ShelfSSH.CredentialLookup {
        lookup(reference, for: hop)
    }

    /// How many passphrases one locked item may be asked for before it is reported (a typo gets another chance),
    /// with the back-off between them: `PassphraseTries`, the rule `vault unlock` and the TUI follow.
    static let passphraseTries = PassphraseTries.count

    private func lookup(_ reference: ReferenceKey, for hop: VerifiedSession) -> ShelfSSH.CredentialLookup {
        // The device's own keys (sync's, the release log's) are never a host's or an identity's secret, whatever a
        // record says.
        if reference.isDeviceSecret {
            return .unavailable(reason: "\(reference) is one of this device's own keys, never sent to a server")
        }
        let stored: AccessibilityClass
        switch storedClass(reference) {
        case .failure(let error): return .unavailable(reason: error.message, hint: error.hint.map { Hint(.text($0)) })
        case .success(nil): return .notStored
        case .success(let known?): stored = known
        }
        guard case .success(let vault) = self.vault() else { return .notStored }
        let purpose = ReleasePurpose(by: releasedBy, host: hop.hop.name, hostKey: hop.hostKey.fingerprint)
        let log = ReleaseLog(locations: workspace.locations)
        var answer = vault.release(reference, class: stored, for: purpose, log: log)
        var tries = 0
        var wrong = 0
        while case .unread(.locked) = answer, tries < Self.passphraseTries, let passphrase = askPassphrase?() {
            if wrong > 0 { PassphraseTries.sleep(PassphraseTries.delay(afterWrong: wrong)) }
            tries += 1
            do {
                try vault.unlock(passphrase: passphrase)
                answer = vault.release(reference, class: stored, for: purpose, log: log)
            } catch  where error.kind == .wrongPassphrase {
                wrong += 1
            } catch {
                return .unavailable(reason: error.message, hint: error.hint.map { Hint(.text($0)) })
            }
        }
        // A locked log key is asked for like a locked item: once.
        if case .notLogged = answer, case .locked = vault.releaseLogKey(create: false),
            let passphrase = askPassphrase?(), (try? vault.unlock(passphrase: passphrase)) != nil
        {
            answer = vault.release(reference, class: stored, for: purpose, log: log)
        }
        switch answer {
        case .released(let secret): return .found(secret)
        case .notLogged(let error):
            return .unavailable(
                reason: "the release log could not be written (\(error.message)), so \(reference) was not released")
        case .unread(.found), .unread(.notStored): return .notStored
        case .unread(.locked):
            let (reason, hint) = LockedCredential.explain(
                reference, stored: stored, situation: wrong > 0 ? .wrongPassphrase(wrong) : .noPassphrase,
                keyringInUse: keyringInUse)
            return .unavailable(reason: reason, hint: hint)
        case .unread(.storedInOtherClass(let other)):
            return .unavailable(reason: "\(reference) moved to \(other) while reading")
        case .unread(.vaultUnavailable(let reason)): return .unavailable(reason: reason)
        }
    }

    /// Whether an unlock outlives the process that was given the passphrase (the kernel keyring keeps the session).
    var keyringInUse: Bool {
        guard case .success(let vault) = vault() else { return false }
        return vault.session().shared
    }

    /// Whether `accessibility` opens right now, without asking anyone (nil: no vault here to ask).
    func canRead(_ accessibility: AccessibilityClass) -> Bool? {
        guard case .success(let vault) = vault() else { return nil }
        return vault.canRead(accessibility)
    }

    /// The fix for this device when a secret the host names is not in its vault, from its own sync state.
    public var notSyncedHint: String? {
        guard (try? SyncSettings.load(from: store)) != nil else {
            return
                "this device does not sync: store the secret here ('sshelf vault set-password HOST', 'sshelf identity "
                + "import'), or turn sync on ('sshelf sync enable') and join your other devices"
        }
        let report = SyncRunner.lastReport(workspace.locations)
        switch report?.membership {
        case "waiting"?:
            // Its invite ran out before the inviting device enrolled it: syncing there no longer helps.
            if let report, let reason = report.reason, reason.hasPrefix("the invite expired") {
                return "\(reason): "
                    + (report.hint ?? "ask an enrolled device for a new invite ('sshelf sync invite'), then run "
                        + "'sshelf sync join' here")
            }
            return "this device waits to be enrolled: run 'sshelf sync now' on the device that invited it, then "
                + "'sshelf sync now' here"
        case "revoked"?:
            return
                "this device was revoked from the sync group: store the secret here ('sshelf vault set-password HOST')"
        case "member"?:
            break
        default:
            return "this device has not joined the sync group: run 'sshelf sync invite' on an enrolled device, then "
                + "'sshelf sync join' here"
        }
        guard (try? SyncSettings.credentialsEnabled(store)) == true else {
            return "credentials are not synced on this device: run 'sshelf sync enable --credentials' here"
        }
        if report?.reason?.hasPrefix("vault locked") == true {
            return
                "the vault was locked when this device last synced: run 'sshelf vault unlock', then 'sshelf sync now'"
        }
        return "it has not reached this device yet: run 'sshelf sync now' here, and 'sshelf sync status' on the device "
            + "where it was saved (its credential sync must be on)"
    }

    public var canRemember: Bool {
        if case .failure(let error) = vault(), error.kind != .notInitialized { return false }
        return true
    }

    /// The class a remembered password of `hostID` is stored in: interactive, or unattended when the host has
    /// autostart forwards (a tunnel at login must be able to read it).
    public func rememberClass(forHost hostID: UUID) -> AccessibilityClass {
        let unattended = (try? store.forwardRules(hostID: hostID).contains { $0.autostart && $0.enabled }) ?? false
        return ClassPolicy.accessibility(for: .hostPassword, readAt: unattended ? .unattended : .interactive)
    }

    /// The class a remembered key-file passphrase of `identityID` is stored in, by the identity's read moment.
    public func rememberClass(forIdentity identityID: UUID) -> AccessibilityClass {
        let moment =
            (try? store.read { store in
                ClassPolicy.readMoment(
                    identity: identityID, hosts: try store.hosts(), forwardRules: try store.forwardRules())
            }) ?? .interactive
        return ClassPolicy.accessibility(for: .identityPassphrase, readAt: moment)
    }

    /// Stores the typed password behind the "remember" gate, in `rememberClass`. Through the vault session: when it
    /// is locked, the passphrase is asked (where someone can answer) and the unlock serves every sshelf process.
    public func rememberPassword(_ password: SecretBytes, forHost hostID: UUID, on hop: VerifiedSession)
        -> ReferenceKey?
    {
        let accessibility = rememberClass(forHost: hostID)
        let stored = throughSession(.hostPassword(hostID), accessibility, what: "the password") {
            (vault) throws(VaultError) in
            try vault.saveRememberedPassword(password, enabled: true, hostID: hostID, class: accessibility)
        }
        return stored ? .hostPassword(hostID) : nil
    }

    /// Stores a key file's passphrase as `identity.<uuid>.passphrase`, in the identity's class, like a password.
    public func rememberKeyPassphrase(_ passphrase: SecretBytes, identityID: UUID, on hop: VerifiedSession)
        -> ReferenceKey?
    {
        let accessibility = rememberClass(forIdentity: identityID)
        let key = ReferenceKey.identityPassphrase(identityID)
        let stored = throughSession(key, accessibility, what: "the key passphrase") { (vault) throws(VaultError) in
            try vault.write(passphrase, for: key, class: accessibility)
        }
        return stored ? key : nil
    }

    /// Runs a vault write; a locked session is unlocked with the passphrase asked (three tries), and when it stays
    /// locked the warning says why and what to run. False when nothing was stored.
    private func throughSession(
        _ key: ReferenceKey, _ accessibility: AccessibilityClass, what: String,
        _ write: (Vault) throws(VaultError) -> Void
    ) -> Bool {
        do {
            let vault: Vault
            if case .success(let known)? = opened {
                vault = known
            } else {
                vault = try VaultAccess.open(workspace, create: true)
                opened = .success(vault)
            }
            var wrong = 0
            while true {
                do {
                    try write(vault)
                    return true
                } catch  where error.kind == .locked {
                    guard wrong < Self.passphraseTries, let passphrase = askPassphrase?() else {
                        let (reason, hint) = LockedCredential.explain(
                            key, stored: accessibility, situation: wrong > 0 ? .wrongPassphrase(wrong) : .noPassphrase,
                            keyringInUse: keyringInUse)
                        workspace.warn(
                            "could not remember \(what): \(reason) (\(hint.words); then log in again and answer 'y')")
                        return false
                    }
                    if wrong > 0 { PassphraseTries.sleep(PassphraseTries.delay(afterWrong: wrong)) }
                    do {
                        try vault.unlock(passphrase: passphrase)
                    } catch  where error.kind == .wrongPassphrase {
                        wrong += 1
                    }
                }
            }
        } catch {
            workspace.warn("could not remember \(what): \(error)")
            return false
        }
    }
}
