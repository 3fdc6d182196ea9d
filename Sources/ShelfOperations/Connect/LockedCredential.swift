// LockedCredential: why a credential the vault holds cannot be read right now, in the user's words (its class, who
// may read that class when), and only fixes that work in that situation: `vault unlock` only where the kernel
// keyring keeps an unlock between processes, `vault set-class` where a looser class is what the use needs, the
// passphrase on a terminal or `--passphrase-fd N` where the command can take it.
import Foundation
import ShelfCore
import ShelfVault

public enum LockedCredential {
    /// What was tried before the item turned out locked.
    public enum Situation: Sendable, Equatable {
        /// Nobody gave this process the passphrase (no terminal to ask on, no --passphrase-fd, or the prompt was left).
        case noPassphrase
        /// The passphrase given was wrong this many times.
        case wrongPassphrase(Int)
        /// A process that logs in with nobody there (`forward up`, a warm session): it never asks.
        case unattended(who: String)
    }

    /// The class an unattended reader can open after `sshelf vault unlock` (and that never leaves the device).
    public static let unattendedClass = AccessibilityClass.afterFirstUnlockThisDeviceOnly

    /// `reason` completes "the private key of identity 'x' cannot be read: …"; `hint` is what to run.
    /// `hasPassphrase`: whether the vault has one at all (without, nothing is ever locked and no unlock is needed).
    public static func explain(_ reference: ReferenceKey, stored: AccessibilityClass, situation: Situation,
                               keyringInUse: Bool, hasPassphrase: Bool = true) -> (reason: String, hint: String) {
        let setClass = "sshelf vault set-class \(reference.rawValue) \(unattendedClass.rawValue)"
        let give = "give the vault passphrase on a terminal, or on a file descriptor: --passphrase-fd N (e.g. --passphrase-fd 3 3<file)"
        switch situation {
        case .wrongPassphrase(let times):
            return ("the vault passphrase given was wrong\(times > 1 ? " \(times) times" : "")",
                    "give the right one: typed at the prompt, or as the first line read from --passphrase-fd N ('sshelf vault unlock' checks a passphrase)")
        case .unattended(let who):
            let reason = "it is stored \(stored), which only a process you type the vault passphrase into can read, "
                + "and \(who) logs in with nobody there to type it (at start, after every drop)"
            guard hasPassphrase else { return (reason, "let unattended logins read it: \(setClass)") }
            let then = keyringInUse
                ? "then 'sshelf vault unlock' once per login"
                : "then give the passphrase when starting it (--passphrase-fd N): this system keeps no unlock between processes (no kernel keyring)"
            return (reason, "let unattended logins read it: \(setClass), \(then)")
        case .noPassphrase:
            switch stored.unlockScope {
            case .whileActive:
                let reason = "it is stored \(stored), which only a process given the vault passphrase can read, and none was given here"
                let later = keyringInUse
                    ? "; or, to let commands read it without the passphrase after 'sshelf vault unlock': \(setClass)"
                    : ""
                return (reason, give + later)
            case .session, .anyTime:
                if keyringInUse {
                    return ("it is stored \(stored), and the vault has not been unlocked since you logged in",
                            "sshelf vault unlock (once per login; every sshelf process can then read it), or \(give)")
                }
                return ("it is stored \(stored), and this process was given no vault passphrase; without the kernel keyring, an unlock does not outlive the process that was given it",
                        give)
            }
        }
    }
}
