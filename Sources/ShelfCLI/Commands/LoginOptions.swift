// LoginOptions: what the commands that log in to hosts declare alike, so SSHCommands' helpers (the connect options,
// the credential source, the login's prompts, certificate renewal) read them from any of those commands' calls:
// the connect timeout and the vault passphrase (`LoginOptions`), and the answers to the login's own questions
// (`PromptingLoginOptions`: --accept-new, --password-fd, --remember).
protocol LoginOptions: CommandOptions {
    var timeout: Option<Double> { get }
    var passphraseFD: Option<Int32> { get }
}

protocol PromptingLoginOptions: LoginOptions {
    var login: LoginAnswerOptions { get }
}

extension PromptingLoginOptions {
    // Seen through the group (computed: the help lists the group's declarations once, where it stands).
    var timeout: Option<Double> { login.timeout }
    var passphraseFD: Option<Int32> { login.passphraseFD }
}

/// The options of a login that asks its own questions (connect, exec, copy-id, forward start), in the order their
/// help lists them.
struct LoginAnswerOptions: CommandOptions {
    let acceptNew = Flag(
        "accept-new", "accept and pin the host key of a host never seen before (never a changed key)")
    let passwordFD = Option(
        "password-fd", .descriptor, "read the password from file descriptor N (for scripts; never argv or env)")
    let remember = Flag(
        "remember",
        "keep a password (typed or on --password-fd) or a key file's passphrase in the vault once it has logged in")
    let timeout = SSHCommands.timeout
    let passphraseFD = LoginPassphraseOption.passphraseFD
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
