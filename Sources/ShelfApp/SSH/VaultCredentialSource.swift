// VaultCredentialSource: the connect flow's credentials, read from the vault after the host key was verified.
// Each read names the class the item is stored under (found in the item list, which holds no secrets); a
// reference with no item here is `notStored` — the "not yet synced to this device" case — never a blank.
import Foundation
import ShelfCore
import ShelfSSH
import ShelfStore
import ShelfSync
import ShelfVault

final class VaultCredentialSource: CredentialSource {
    private let context: AppContext
    private var opened: Result<Vault, VaultError>?
    /// Asks for the vault passphrase when an item is locked; nil where nobody can answer (scripts).
    private let askPassphrase: (() -> ShelfVault.SecretBytes?)?

    init(context: AppContext, askPassphrase: (() -> ShelfVault.SecretBytes?)?) {
        self.context = context
        self.askPassphrase = askPassphrase
    }

    /// Opened on first use only: a connection whose methods need no stored secret never touches the vault.
    private func vault() -> Result<Vault, VaultError> {
        if let opened { return opened }
        let result: Result<Vault, VaultError>
        do { result = .success(try Vault.open(context.locations, options: VaultCommands.options(context), createIfMissing: false)) } catch {
            result = .failure(error)
        }
        opened = result
        return result
    }

    func privateKey(for reference: ReferenceKey) -> ShelfSSH.CredentialLookup { lookup(reference) }
    func keyPassphrase(for reference: ReferenceKey) -> ShelfSSH.CredentialLookup { lookup(reference) }
    func password(for reference: ReferenceKey) -> ShelfSSH.CredentialLookup { lookup(reference) }

    private func lookup(_ reference: ReferenceKey) -> ShelfSSH.CredentialLookup {
        // Sync's own keys are never a host's or an identity's secret, whatever a record says.
        if reference.isSyncSecret { return .unavailable(reason: "\(reference) is one of sync's keys, never sent to a server") }
        let vault: Vault
        switch self.vault() {
        case .success(let opened): vault = opened
        case .failure(let error) where error.kind == .notInitialized: return .notStored
        case .failure(let error): return .unavailable(reason: error.message)
        }
        let stored: AccessibilityClass
        do {
            guard let info = try vault.items().first(where: { $0.key == reference.rawValue }) else { return .notStored }
            guard let known = info.knownClass else {
                return .unavailable(reason: "\(reference) is stored under a class this sshelf does not know")
            }
            stored = known
        } catch {
            return .unavailable(reason: error.message)
        }
        var answer = vault.read(reference, class: stored)
        if case .locked = answer, let passphrase = askPassphrase?() {
            if (try? vault.unlock(passphrase: passphrase)) != nil { answer = vault.read(reference, class: stored) }
        }
        switch answer {
        case .found(let secret): return .found(secret.withUnsafeBytes { ShelfSSH.SecretBytes($0) })
        case .notStored: return .notStored
        case .locked: return .locked
        case .storedInOtherClass(let other): return .unavailable(reason: "\(reference) moved to \(other) while reading")
        case .vaultUnavailable(let reason): return .unavailable(reason: reason)
        }
    }

    /// The fix for this device when a secret the host names is not in its vault, from its own sync state.
    var notSyncedHint: String? {
        guard let store = try? context.store(), (try? SyncSettings.load(from: store)) != nil else {
            return "this device does not sync: store the secret here ('sshelf vault set-password HOST', 'sshelf identity import'), or turn sync on ('sshelf sync enable') and join your other devices"
        }
        let report = SyncRunner.lastReport(context.locations)
        switch report?.membership {
        case "waiting"?:
            return "this device waits to be enrolled: run 'sshelf sync now' on the device that invited it, then 'sshelf sync now' here"
        case "revoked"?:
            return "this device was revoked from the sync group: store the secret here ('sshelf vault set-password HOST')"
        case "member"?:
            break
        default:
            return "this device has not joined the sync group: run 'sshelf sync invite' on an enrolled device, then 'sshelf sync join' here"
        }
        guard (try? SyncSettings.credentialsEnabled(store)) == true else {
            return "credentials are not synced on this device: run 'sshelf sync enable --credentials' here"
        }
        if report?.reason?.hasPrefix("vault locked") == true {
            return "the vault was locked when this device last synced: run 'sshelf vault unlock', then 'sshelf sync now'"
        }
        return "it has not reached this device yet: run 'sshelf sync now' here, and 'sshelf sync status' on the device where it was saved (its credential sync must be on)"
    }

    var canRemember: Bool {
        if case .failure(let error) = vault(), error.kind != .notInitialized { return false }
        return true
    }

    /// Stores the typed password behind the "remember" gate, in the class its use needs: interactive, or
    /// unattended when the host has autostart forwards (a tunnel at login must be able to read it).
    func rememberPassword(_ password: ShelfSSH.SecretBytes, forHost hostID: UUID) -> ReferenceKey? {
        do {
            let vault = try Vault.open(context.locations, options: VaultCommands.options(context), createIfMissing: true)
            opened = .success(vault)
            let unattended = (try? context.store().forwardRules(hostID: hostID).contains { $0.autostart && $0.enabled }) ?? false
            let accessibility = ClassPolicy.accessibility(for: .hostPassword, readAt: unattended ? .unattended : .interactive)
            let secret = password.withBytes { ShelfVault.SecretBytes(copying: $0) }
            try vault.saveRememberedPassword(secret, enabled: true, hostID: hostID, class: accessibility)
            return .hostPassword(hostID)
        } catch {
            context.warn("could not remember the password: \(error)")
            return nil
        }
    }
}

extension SecretInput {
    /// Reads from the terminal (fd nil) or a given descriptor, outside a parsed command line.
    init(fd: Int32?, option: String) {
        self.fd = fd
        self.option = option
    }
}
