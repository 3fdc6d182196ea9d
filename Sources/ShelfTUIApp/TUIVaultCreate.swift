// TUIVaultCreate: V on a device with no vault offers to create one, as `sshelf vault init` then `vault passwd` do:
// the new passphrase asked twice in the vault dialog (Esc, or an empty first answer, creates nothing), the vault
// made with that passphrase, and the outcome in the title bar.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfSystem
import ShelfUI
import ShelfVault

extension TUIVault {
    /// How many times two answers that differ are asked again before nothing is created.
    static let createTries = 3

    /// Creates the vault with a passphrase from `ask` (asked twice); nil from `ask` cancels.
    func create(ask: (String) -> SecretBytes?) -> Notice {
        var question = VaultDialogText.create
        for attempt in 1...Self.createTries {
            guard let first = ask(question), !first.isEmpty else { return Notice("no vault created") }
            guard let again = ask(VaultDialogText.createAgain) else { return Notice("no vault created") }
            guard first.isEqual(to: again) else {
                question = VaultDialogText.createRetry(attempt + 1, of: Self.createTries)
                continue
            }
            do {
                let made: Vault = try VaultAccess.open(Self.quiet(context), create: true)
                let noPassphraseYet: SecretBytes? = nil
                try made.setPassphrase(first, current: noPassphraseYet)
                adopt(made)
                return Notice("created the vault with its passphrase (sshelf vault status says more)")
            } catch {
                return Notice("no vault created: \(Display.safe(ShelfError(from: error).message))", isError: true)
            }
        }
        return Notice("no vault created: the two passphrases differed \(Self.createTries) times", isError: true)
    }
}
