// VaultCredentialSource: the connect flow's credentials, read from the vault after the host key was verified.
// Each read names the class the item is stored under (found in the item list, which holds no secrets); a
// reference with no item here is `notStored` — the "not yet synced to this device" case — never a blank.
import Foundation
import ShelfCore
import ShelfSSH
import ShelfStore
import ShelfVault

final class VaultCredentialSource: CredentialSource {
    private let context: AppContext
    private var opened: Result<Vault, VaultError>?
    /// Asks for the vault passphrase when an item is locked; nil where nobody can answer (scripts).
    private let askPassphrase: (() -> SecretBytes?)?

    init(context: AppContext, askPassphrase: (() -> SecretBytes?)?) {
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

    func privateKey(for reference: ReferenceKey, on hop: VerifiedSession) -> ShelfSSH.CredentialLookup { lookup(reference) }
    func keyPassphrase(for reference: ReferenceKey, on hop: VerifiedSession) -> ShelfSSH.CredentialLookup { lookup(reference) }
    func password(for reference: ReferenceKey, on hop: VerifiedSession) -> ShelfSSH.CredentialLookup { lookup(reference) }

    private func lookup(_ reference: ReferenceKey) -> ShelfSSH.CredentialLookup {
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
        case .found(let secret): return .found(secret)
        case .notStored: return .notStored
        case .locked: return .locked
        case .storedInOtherClass(let other): return .unavailable(reason: "\(reference) moved to \(other) while reading")
        case .vaultUnavailable(let reason): return .unavailable(reason: reason)
        }
    }

    var canRemember: Bool {
        if case .failure(let error) = vault(), error.kind != .notInitialized { return false }
        return true
    }

    /// Stores the typed password behind the "remember" gate, in the class its use needs: interactive, or
    /// unattended when the host has autostart forwards (a tunnel at login must be able to read it).
    func rememberPassword(_ password: SecretBytes, forHost hostID: UUID, on hop: VerifiedSession) -> ReferenceKey? {
        do {
            let vault = try Vault.open(context.locations, options: VaultCommands.options(context), createIfMissing: true)
            opened = .success(vault)
            let unattended = (try? context.store().forwardRules(hostID: hostID).contains { $0.autostart && $0.enabled }) ?? false
            let accessibility = ClassPolicy.accessibility(for: .hostPassword, readAt: unattended ? .unattended : .interactive)
            try vault.saveRememberedPassword(password, enabled: true, hostID: hostID, class: accessibility)
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
