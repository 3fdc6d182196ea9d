// LockedCredential: why a credential the vault holds cannot be read right now, in the user's words (its class, when
// that class opens), and only fixes that work in that situation: `vault unlock` only where the kernel keyring keeps
// the session between processes, `vault set-class` where a tunnel must outlive the idle timeout, the passphrase on a
// terminal or on a descriptor where the command can take it (in PassphraseNeed's words: each face names its own way).
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

    /// `reason` completes "the private key of identity 'x' cannot be read: …"; `hint` is what to run. Only asked
    /// about an item the vault cannot open now (a vault without a passphrase opens every class).
    public static func explain(
        _ reference: ReferenceKey, stored: AccessibilityClass, situation: Situation,
        keyringInUse: Bool
    ) -> (reason: String, hint: String) {
        let setClass = "sshelf vault set-class \(reference.rawValue) \(unattendedClass.rawValue)"
        let give = PassphraseNeed.give.words
        switch situation {
        case .wrongPassphrase(let times):
            return (
                "the vault passphrase given was wrong\(times > 1 ? " \(times) times" : "")",
                "\(PassphraseNeed.giveTheRightOne.words) ('sshelf vault unlock' checks a passphrase)"
            )
        case .unattended(let who):
            guard keyringInUse else {
                return (
                    "it is stored \(stored), which only a process you type the vault passphrase into can read, "
                        + "and \(who) logs in with nobody there to type it (at start, after every drop)",
                    "let unattended logins read it: \(setClass), then \(PassphraseNeed.giveAtStart.words): this "
                        + "system keeps no unlock between processes (no kernel keyring)"
                )
            }
            if stored.unlockScope == .whileActive {
                return (
                    "it is stored \(stored), which opens only while the vault session is unlocked, and "
                        + "the session is locked "
                        + "(never unlocked since login, 'sshelf vault lock', or idle); \(who) logs in with nobody "
                        + "there to unlock it",
                    "sshelf vault unlock (a waiting tunnel then comes up within a second, until the session goes "
                        + "idle); to stay up unattended: \(setClass), then 'sshelf vault unlock' once per login"
                )
            }
            return (
                "it is stored \(stored), and the vault has not been unlocked since you logged in; \(who) logs in with "
                    + "nobody there to unlock it",
                "sshelf vault unlock (once per login; a waiting tunnel then comes up within a second)"
            )
        case .noPassphrase:
            switch stored.unlockScope {
            case .whileActive:
                if keyringInUse {
                    return (
                        "it is stored \(stored), and the vault session is locked (never unlocked since login, 'sshelf "
                            + "vault lock', or idle)",
                        "sshelf vault unlock (opens it for every sshelf process until 'sshelf vault lock' or the idle "
                            + "timeout), or \(give)"
                    )
                }
                return (
                    "it is stored \(stored), which only a process given the vault passphrase can read, "
                        + "and none was given here",
                    give
                )
            case .session, .anyTime:
                if keyringInUse {
                    return (
                        "it is stored \(stored), and the vault has not been unlocked since you logged in",
                        "sshelf vault unlock (once per login; every sshelf process can then read it), or \(give)"
                    )
                }
                return (
                    "it is stored \(stored), and this process was given no vault passphrase; without the kernel "
                        + "keyring, an unlock does not outlive the process that was given it",
                    give
                )
            }
        }
    }
}
