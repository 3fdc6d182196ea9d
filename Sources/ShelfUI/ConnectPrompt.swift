// ConnectPrompt: the questions connecting may ask inside the TUI, before curses is left — an unknown host
// key, a key that does not match the one known (changed, or of another type than the known ones: accepted only by
// typing the host's name), a password or vault passphrase (masked, with "remember in vault" when it can be kept),
// keyboard-interactive prompts — and the vault passphrase when the user unlocks the vault with its key. The login
// thread sends `Action.prompt` and waits; the answer goes back as `Effect.answerPrompt`.
public enum ConnectPrompt: Sendable, Equatable {
    case hostKey(host: String, keyType: String, fingerprint: String)
    /// The offered key does not match what is known for the host.
    case keyMismatch(KeyMismatch)
    /// A secret typed by the user; `echo` is false for passwords.
    case secret(host: String, prompt: String, echo: Bool, input: String, remember: Bool, offerRemember: Bool)
    /// The vault's passphrase, asked because the user pressed the vault key (not for a connection); masked.
    case vaultPassphrase(prompt: String, input: String)
}

/// A host key that differs from the known one. A changed key has ended the connection (nothing was sent); one
/// of another type is asked while the connection waits. Either way the only way to accept it is to type the
/// host's name: a deliberate replacement of the pin, never a reflex `y`.
public struct KeyMismatch: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A key of a known type that differs: possibly a man-in-the-middle.
        case changed
        /// The host is known only under other key types.
        case otherType
    }

    public var kind: Kind
    /// The name to type (the hop's host name).
    public var host: String
    /// `host` or `[host]:port`.
    public var address: String
    /// "ssh-ed25519 SHA256:…"
    public var offered: String
    /// The known keys ("ssh-ed25519 SHA256:…") or, for another type, the known types.
    public var known: [String]
    /// Where the known key came from: the host's pinned key, sshelf's known_hosts, ~/.ssh/known_hosts.
    public var source: String
    public var input = ""
    /// Set when Enter was pressed on something else than the host's name.
    public var mistyped = false
    /// The connect that met the changed key (perhaps on a jump host), started again once the pin is replaced.
    public var retry: ConnectAttempt?

    public init(
        kind: Kind, host: String, address: String, offered: String, known: [String], source: String,
        retry: ConnectAttempt? = nil
    ) {
        self.kind = kind
        self.retry = retry
        self.host = host
        self.address = address
        self.offered = offered
        self.known = known
        self.source = source
    }
}

public enum PromptAnswer: Sendable, Equatable {
    case trustHostKey(Bool)
    /// The user typed the host's name in the changed-key dialog: replace the pin, then connect again.
    case replaceChangedKey
    /// The app turns the text into a zeroing secret buffer at once; the dialog's input is gone by then.
    case secret(String, remember: Bool)
    case cancelled
}
