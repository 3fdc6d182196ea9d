// LoginOptions: what the commands that log in to hosts declare alike, so SSHCommands' helpers (the connect options,
// the credential source, the login's prompts, certificate renewal) read them from any of those commands' calls:
// the connect timeout and the vault passphrase (`LoginOptions`), and the answers to the login's own questions
// (`PromptingLoginOptions`: --accept-new, --password-fd, --remember).
protocol LoginOptions: CommandOptions {
    var timeout: Option<Double> { get }
    var passphraseFD: Option<Int32> { get }
}

protocol PromptingLoginOptions: LoginOptions {
    var acceptNew: Flag { get }
    var passwordFD: Option<Int32> { get }
    var remember: Flag { get }
}

/// And what `run` and `cp` take alike, which FleetCommand reads: -l USER, --yes, --parallel N, --accept-new.
protocol FleetOptions: LoginOptions {
    var login: Option<String> { get }
    var yes: Flag { get }
    var parallel: Option<Int> { get }
    var acceptNew: Flag { get }
}

/// `--passphrase-fd N` as the commands that log in to hosts declare it: the vault passphrase for a locked credential
/// the login needs.
enum LoginPassphraseOption {
    static let passphraseFD = Option(
        "passphrase-fd", .descriptor,
        "read the vault passphrase from descriptor N when a credential the login needs is locked (for "
            + "scripts; never argv or env)")
}
