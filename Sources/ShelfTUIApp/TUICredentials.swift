// TUICredentials: the TUI's credential source — the vault's, through the vault session (a passphrase typed once, here
// or in any sshelf process, serves every later connect until the idle timeout), with the passphrase asked in a dialog
// only when the item's class is locked, "wrong passphrase" and another try (three in all), and Esc in that
// dialog cancelling the whole connect. Lookups still happen only for a verified hop (each carries its session).
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfSSH
import ShelfStore

final class TUICredentials: CredentialSource {
    private let source: VaultCredentialSource
    private let vault: TUIVault
    /// Asks a question in a masked dialog; nil when the user left it.
    private let ask: (String) -> SecretBytes?
    /// Ends the connect attempt (Esc in the passphrase dialog means "do not connect").
    private let cancel: () -> Void

    /// `releasedBy` names the reader in the vault's release log ("tui", "copy-id").
    init(
        workspace: Workspace, store: Store, vault: TUIVault, releasedBy: String,
        ask: @escaping (String) -> SecretBytes?,
        cancel: @escaping () -> Void
    ) {
        source = VaultCredentialSource(
            workspace: workspace, store: store, vault: vault.current, releasedBy: releasedBy,
            askPassphrase: nil)
        self.vault = vault
        self.ask = ask
        self.cancel = cancel
    }

    func privateKey(for reference: ReferenceKey, on hop: VerifiedSession) -> CredentialLookup {
        unlocked(reference) ?? source.privateKey(for: reference, on: hop)
    }

    func keyPassphrase(for reference: ReferenceKey, on hop: VerifiedSession) -> CredentialLookup {
        unlocked(reference) ?? source.keyPassphrase(for: reference, on: hop)
    }

    func password(for reference: ReferenceKey, on hop: VerifiedSession) -> CredentialLookup {
        unlocked(reference) ?? source.password(for: reference, on: hop)
    }

    var canRemember: Bool { source.canRemember }

    /// A locked vault session is unlocked first (a dialog; Esc there only skips remembering), so "remember" works
    /// whenever the user can give the passphrase, and the unlock serves every sshelf process.
    func rememberPassword(_ password: SecretBytes, forHost hostID: UUID, on hop: VerifiedSession) -> ReferenceKey? {
        if let opened = vault.current, !opened.canRead(source.rememberClass(forHost: hostID)) {
            switch vault.unlock(ask: ask, question: "To remember the password, the vault passphrase") {
            case .unlocked: break
            case .cancelled, .wrongPassphrase, .failed: return nil
            }
        }
        return source.rememberPassword(password, forHost: hostID, on: hop)
    }

    /// A key file's passphrase, kept the same way (the identity's `identity.<uuid>.passphrase` item).
    func rememberKeyPassphrase(_ passphrase: SecretBytes, identityID: UUID, on hop: VerifiedSession) -> ReferenceKey? {
        if let opened = vault.current, !opened.canRead(source.rememberClass(forIdentity: identityID)) {
            switch vault.unlock(ask: ask, question: "To remember the key passphrase, the vault passphrase") {
            case .unlocked: break
            case .cancelled, .wrongPassphrase, .failed: return nil
            }
        }
        return source.rememberKeyPassphrase(passphrase, identityID: identityID, on: hop)
    }

    /// nil when the item can be read now (or the vault never had it: the source says so); otherwise the answer
    /// that ends this lookup.
    private func unlocked(_ reference: ReferenceKey) -> CredentialLookup? {
        guard vault.isLocked(reference) else { return nil }
        switch vault.unlock(ask: ask, question: "The vault is locked. Vault passphrase") {
        case .unlocked:
            return nil
        case .cancelled:
            cancel()
            return .unavailable(reason: "the vault passphrase was not given")
        case .wrongPassphrase:
            return .unavailable(reason: "the vault passphrase was wrong \(TUIVault.passphraseTries) times")
        case .failed(let message):
            return .unavailable(reason: message)
        }
    }
}
