// LockedCredential: why a credential the vault holds cannot be read right now, in the user's words (its class, when
// that class opens), and only fixes that work in that situation: `vault unlock` only where the kernel keyring keeps
// the session between processes, `vault set-class` where a tunnel must outlive the idle timeout, the passphrase on a
// terminal or on a descriptor where the command can take it. The fix is a Hint (data): each face words it — the CLI
// types the commands and names --passphrase-fd, the TUI names its V key.
import FoundationEssentials
import ShelfCore
import ShelfVault

public enum LockedCredential {
    /// What was tried before the item turned out locked.
    public enum Situation: Sendable, Equatable {
        /// Nobody gave this process the passphrase (no terminal to ask on, none on a descriptor, or the prompt was
        /// left).
        case noPassphrase
        /// The passphrase given was wrong this many times.
        case wrongPassphrase(Int)
        /// A process that logs in with nobody there (`forward up`, a warm session): it never asks.
        case unattended(who: String)
    }

    /// The class an unattended reader can open after `sshelf vault unlock` (and that never leaves the device).
    public static let unattendedClass = AccessibilityClass.afterFirstUnlockThisDeviceOnly

    /// `reason` completes "the private key of identity 'x' cannot be read: …"; `hint` is what to run, as data each face
    /// words (a command as typed or a key, the passphrase as the face takes it). Only asked about an item the vault
    /// cannot open now (a vault without a passphrase opens every class).
    public static func explain(
        _ reference: ReferenceKey, stored: AccessibilityClass, situation: Situation,
        keyringInUse: Bool
    ) -> (reason: String, hint: Hint) {
        let setClass = Hint.Part.command(["vault", "set-class", reference.rawValue, unattendedClass.rawValue])
        let unlock = Hint.Part.command(["vault", "unlock"])
        switch situation {
        case .wrongPassphrase(let times):
            return (
                "the vault passphrase given was wrong\(times > 1 ? " \(times) times" : "")",
                Hint(.passphrase(.giveTheRightOne), .text(" ('sshelf vault unlock' checks a passphrase)"))
            )
        case .unattended(let who):
            guard keyringInUse else {
                let noKeyring = Hint.Part.text(": this system keeps no unlock between processes (no kernel keyring)")
                let reason =
                    "it is stored \(stored), which only a process you type the vault passphrase into can read, "
                    + "and \(who) logs in with nobody there to type it (at start, after every drop)"
                // Already in the class unattended logins read: moving it there again changes nothing, so the hint
                // names only what is left to do.
                guard stored != unattendedClass else {
                    return (reason, Hint(.passphrase(.giveAtStart), noKeyring))
                }
                return (
                    reason,
                    Hint(
                        .text("let unattended logins read it: "), setClass, .text(", then "), .passphrase(.giveAtStart),
                        noKeyring)
                )
            }
            if stored.unlockScope == .whileActive {
                return (
                    "it is stored \(stored), which opens only while the vault session is unlocked, and "
                        + "the session is locked "
                        + "(never unlocked since login, 'sshelf vault lock', or idle); \(who) logs in with nobody "
                        + "there to unlock it",
                    Hint(
                        unlock,
                        .text(" (a waiting tunnel then comes up within a second, until the session goes idle); "),
                        .text("to stay up unattended: "), setClass, .text(", then 'sshelf vault unlock' once per login")
                    )
                )
            }
            return (
                "it is stored \(stored), and the vault has not been unlocked since you logged in; \(who) logs in with "
                    + "nobody there to unlock it",
                Hint(unlock, .text(" (once per login; a waiting tunnel then comes up within a second)"))
            )
        case .noPassphrase:
            switch stored.unlockScope {
            case .whileActive:
                if keyringInUse {
                    return (
                        "it is stored \(stored), and the vault session is locked (never unlocked since login, 'sshelf "
                            + "vault lock', or idle)",
                        Hint(
                            unlock,
                            .text(" (opens it for every sshelf process until 'sshelf vault lock' or the idle timeout)")
                        ).or(.passphrase(.give))
                    )
                }
                return (
                    "it is stored \(stored), which only a process given the vault passphrase can read, "
                        + "and none was given here",
                    Hint(.passphrase(.give))
                )
            case .session, .anyTime:
                if keyringInUse {
                    return (
                        "it is stored \(stored), and the vault has not been unlocked since you logged in",
                        Hint(unlock, .text(" (once per login; every sshelf process can then read it)"))
                            .or(.passphrase(.give))
                    )
                }
                return (
                    "it is stored \(stored), and this process was given no vault passphrase; without the kernel "
                        + "keyring, an unlock does not outlive the process that was given it",
                    Hint(.passphrase(.give))
                )
            }
        }
    }
}
