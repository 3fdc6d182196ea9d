// TUIHostPassword: the host form's Password field, saved after the host — stored in the vault by the same operation
// as `sshelf vault set-password` (the class the vault's policy names for the host, device-only by default), or
// removed. The password goes to the vault only, never to the store, a log or the screen.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfStore
import ShelfUI
import ShelfVault

enum TUIHostPassword {
    /// The vault passphrase question as a dialog of the run loop (the worker's thread waits for the answer).
    static func vaultPassphrase(asking prompts: PromptChannel) -> @Sendable (String) -> SecretBytes? {
        { question in
            guard case .secret(let passphrase, _) = prompts.ask(.vaultPassphrase(prompt: question, input: "")) else {
                return nil
            }
            return passphrase
        }
    }

    /// What to add to the save's line ("; password stored in the vault (…)"); a failure is the Password field's.
    /// `ask` puts the vault passphrase question in a dialog when the password's class is locked.
    static func apply(
        _ change: PasswordChange, hostID: UUID, workspace: Workspace, store: Store,
        ask: (String) -> SecretBytes?
    ) throws -> String {
        do {
            switch change {
            case .keep:
                return ""
            case .remove:
                try CredentialOperations.removeHostPassword(hostID, workspace: workspace, store: store)
                return "; password removed from the vault"
            case .set(let typed):
                let accessibility = try CredentialOperations.storeHostPassword(
                    hostID, workspace: workspace, store: store,
                    vaultPassphrase: {
                        guard let passphrase = ask("To store the password, the vault passphrase:") else {
                            throw ShelfError(.failure, "the vault stays locked, so the password was not stored")
                        }
                        return passphrase
                    },
                    password: {
                        // Into a zeroing buffer at once, the copy wiped (as the connect dialogs' answers are).
                        var bytes = Array(typed.utf8)
                        return SecretBytes.take(&bytes)
                    })
                return "; password stored in the vault (\(accessibility))"
            }
        } catch {
            // The host itself is saved; the form stays open with the reason under the Password field.
            throw FieldFailure(field: "password", message: "the host is saved, but " + StoreWorker.message(error))
        }
    }
}
