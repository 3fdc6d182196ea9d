// ServiceHintWords: a hint (Hint) as the service's log says it. The service is started by systemd or a login script
// and is never given the vault passphrase, so where a hint asks for it the service says so and names what can take
// one: `sshelf vault unlock`, which it picks up at once where the kernel keyring keeps an unlock, or `forward up`
// in its place, given the passphrase when started. Commands are written as typed, as the CLI writes them. `forward
// status` words the service's rules' hints the same way (the service, not the command typed, would take the fix).
import ShelfCore

public enum ServiceHintWords {
    public static func words(_ hint: Hint) -> String {
        hint.worded { part in
            guard case .passphrase(let need) = part else { return nil }
            return passphrase(need)
        }
    }

    /// How the vault passphrase reaches what the service runs: not through the service.
    static func passphrase(_ need: PassphraseNeed) -> String {
        switch need {
        case .give, .giveTheRightOne:
            "the service is never given the vault passphrase: run 'sshelf vault unlock', which it picks up where "
                + "the kernel keyring keeps an unlock"
        case .giveAtStart:
            "the service is never given the vault passphrase: stop it ('sshelf service stop') and run 'sshelf "
                + "forward up' in its place, giving it the passphrase when starting it"
        }
    }
}
