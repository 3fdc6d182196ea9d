// LoginPassphraseOption: `--passphrase-fd N` as the commands that log in to hosts (connect, exec, run, cp, forward,
// tmux broadcast…) declare it: the vault passphrase for a locked credential the login needs.
enum LoginPassphraseOption {
    static let passphraseFD = Option(
        "passphrase-fd", .descriptor,
        "read the vault passphrase from descriptor N when a credential the login needs is locked (for "
            + "scripts; never argv or env)")
}
