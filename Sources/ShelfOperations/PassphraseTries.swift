// PassphraseTries: the one rule for a person typing the vault passphrase — `sshelf vault unlock`, the TUI's `V` and
// its passphrase dialogs, a connect that finds an item locked: `count` tries, and after each wrong one a wait that
// doubles (1 s, 2 s, … up to 5 min), the back-off the agent's unlock waits (`UnlockBackoff` uses `delay`), so no way
// in guesses faster than another. The wait is injected: a test passes one that records it instead of sleeping.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfVault

public enum PassphraseTries {
    /// Tries before the passphrase is given up on ("wrong passphrase (try 2 of 3)" in between).
    public static let count = 3
    /// The wait after the first wrong answer, and the longest.
    public static let first: Duration = .seconds(1)
    public static let longest: Duration = .seconds(300)

    /// The wait after `wrong` wrong answers in a row.
    public static func delay(afterWrong wrong: Int) -> Duration {
        guard wrong > 0 else { return .zero }
        return min(longest, first * (1 << min(wrong - 1, 16)))
    }

    /// Sleeps `duration` (the wait between tries when no other is injected).
    public static func sleep(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var time = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var left = timespec()
        while nanosleep(&time, &left) == -1 && errno == EINTR { time = left }
    }

    public enum Outcome: Equatable {
        case unlocked
        /// Nothing more was typed (the user left the dialog, the input ended); `afterWrong` is the refusal of the
        /// wrong passphrase before, if there was one.
        case cancelled(afterWrong: VaultError?)
        /// Wrong `count` times: the last refusal.
        case wrongPassphrase(VaultError)
        case failed(VaultError)
    }

    /// The question for try `number` (from 1): `question` first, then that the last one was wrong.
    public static func prompt(try number: Int, question: String) -> String {
        number == 1 ? "\(question):" : "Wrong passphrase (try \(number) of \(count)). Vault passphrase:"
    }

    /// Asks (through `ask`, which gets the question and returns nil when nothing more is typed) and unlocks `vault`.
    public static func unlock(
        _ vault: Vault, question: String = "Vault passphrase", ask: (String) -> SecretBytes?,
        wait: (Duration) -> Void = PassphraseTries.sleep
    ) -> Outcome {
        tries(question: question, ask: ask, wait: wait) { passphrase throws(VaultError) in
            try vault.unlock(passphrase: passphrase)
        }
    }

    /// The rule itself: `check` is the vault's unlock (a test gives its own, with a wait that records).
    public static func tries(
        question: String, ask: (String) -> SecretBytes?, wait: (Duration) -> Void,
        check: (SecretBytes) throws(VaultError) -> Void
    ) -> Outcome {
        var refusal: VaultError?
        for number in 1...count {
            guard let passphrase = ask(prompt(try: number, question: question)) else {
                return .cancelled(afterWrong: refusal)
            }
            // The wait goes before the check, as the agent's does: nothing is waited for when nothing more comes.
            if number > 1 { wait(delay(afterWrong: number - 1)) }
            do {
                try check(passphrase)
                return .unlocked
            } catch  where error.kind == .wrongPassphrase {
                refusal = error
            } catch {
                return .failed(error)
            }
        }
        return refusal.map { .wrongPassphrase($0) } ?? .cancelled(afterWrong: nil)
    }
}
