// ConnectPrompt: the questions connecting may ask inside the TUI, before curses is left — an unknown host
// key, a key of another type than the one known, a password or vault passphrase (masked, with "remember in
// vault" when it can be kept), keyboard-interactive prompts. The login thread sends `Action.prompt` and waits;
// the answer goes back as `Effect.answerPrompt`.
public enum ConnectPrompt: Sendable, Equatable {
    case hostKey(host: String, keyType: String, fingerprint: String)
    /// The host is known, but only under other key types (`known` says which, and where from).
    case otherKeyType(host: String, keyType: String, fingerprint: String, known: String)
    /// A secret typed by the user; `echo` is false for passwords.
    case secret(host: String, prompt: String, echo: Bool, input: String, remember: Bool, offerRemember: Bool)
}

public enum PromptAnswer: Sendable, Equatable {
    case trustHostKey(Bool)
    /// The app turns the text into a zeroing secret buffer at once; the dialog's input is gone by then.
    case secret(String, remember: Bool)
    case cancelled
}
