// ServiceHintWords: a hint (Hint) as the service's log says it. The service is started by systemd or a login script
// and is never given the vault passphrase, so where a hint asks for it the service says so and names what can take
// one: `sshelf vault unlock`, which it picks up at once where the kernel keyring keeps an unlock, or `forward up` in
// its place, given the passphrase when started — only the latter where no kernel keyring keeps an unlock. Commands
// are written as typed, as the CLI writes them. `forward status` words the service's rules' hints the same way (the
// service, not the command typed, would take the fix).
import ShelfCore

public enum ServiceHintWords {
    /// `keyring`: whether the kernel keyring keeps an unlock between processes here; without it `vault unlock`
    /// reaches only its own process, never the service.
    public static func words(_ hint: Hint, keyring: Bool = true) -> String {
        hint.worded { part in
            guard case .passphrase(let need) = part else { return nil }
            return passphrase(need, keyring: keyring)
        }
    }

    /// How the vault passphrase reaches what the service runs: not through the service.
    static func passphrase(_ need: PassphraseNeed, keyring: Bool) -> String {
        switch need {
        case .give, .giveTheRightOne:
            keyring
                ? "the service is never given the vault passphrase: run 'sshelf vault unlock', which it picks up "
                    + "where the kernel keyring keeps an unlock"
                : "the service is never given the vault passphrase, and this system keeps no unlock between "
                    + "processes (no kernel keyring) for it to pick up: stop it ('sshelf service stop') and run "
                    + "'sshelf forward up' in its place, giving it the passphrase when starting it"
        case .giveAtStart:
            "the service is never given the vault passphrase: stop it ('sshelf service stop') and run 'sshelf "
                + "forward up' in its place, giving it the passphrase when starting it"
        }
    }
}
