// ConnectPrompt: the questions connecting may ask inside the TUI, before curses is left — an unknown host
// key, a password (masked, with "remember in vault"), keyboard-interactive prompts. The SSH engine sends
// `Action.prompt`; the answer goes back as `Effect.answerPrompt`.
public enum ConnectPrompt: Sendable, Equatable {
    case hostKey(host: String, keyType: String, fingerprint: String)
    /// A secret typed by the user; `echo` is false for passwords.
    case secret(host: String, prompt: String, echo: Bool, input: String, remember: Bool, offerRemember: Bool)
}

public enum PromptAnswer: Sendable, Equatable {
    case trustHostKey(Bool)
    case secret(String, remember: Bool)
    case cancelled
}
