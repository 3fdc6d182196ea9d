// TUIUnlockForSSH: the TUI's answer to the ssh_config bridge's unlock guard when ssh has no terminal (git from an
// editor, a script) and the TUI is open — the vault passphrase dialog over whatever is open, each try handed to the
// agent (as `ssh-add -X` does: its tries and back-off, and the session it unlocks is every sshelf process's), the
// guard answered `y` once the vault is open. On a background thread: the run loop keeps drawing while it waits.
import FoundationEssentials
import ShelfCore
import ShelfServices
import ShelfSystem
import ShelfUI

enum TUIUnlockForSSH {
    static func ask(
        _ question: String, vault: TUIVault, prompts: PromptChannel, mailbox: Mailbox, locations: DataLocations,
        answer: @escaping @Sendable (Bool) -> Void
    ) {
        BackgroundThread.start(name: "sshelf-unlock-ssh") {
            var unlocked = false
            for attempt in 1...TUIVault.passphraseTries {
                let text =
                    attempt == 1
                    ? "\(question) Vault passphrase:"
                    : "Wrong passphrase (try \(attempt) of \(TUIVault.passphraseTries)). Vault passphrase:"
                guard case .secret(let passphrase, _) = prompts.ask(.vaultPassphrase(prompt: text, input: "")) else {
                    break
                }
                if AgentClient.unlock(locations, passphrase: passphrase) {
                    unlocked = true
                    break
                }
            }
            answer(unlocked)
            mailbox.post(.vaultStatus(vault.indicator()))
            mailbox.post(
                .notify(
                    unlocked
                        ? Notice("vault unlocked: ssh goes on")
                        : Notice("the vault stays locked: ssh was stopped", isError: true)))
        }
    }
}
