// PromptReducer: keys inside a connect-time dialog. The answer leaves the state at once: the dialog closes (its
// typed input with it) before the effect carrying the answer runs.
import FoundationEssentials
import ShelfCore

enum PromptReducer {
    static func key(_ state: inout UIState, _ key: Key, _ prompt: ConnectPrompt) -> [Effect] {
        switch prompt {
        case .hostKey:
            switch Keymap.binding(for: key, in: .prompt)?.command {
            case .promptTrust:
                closePrompt(&state)
                state.notice = Notice("host key trusted; logging in...")
                return [.answerPrompt(.trustHostKey(true))]
            case .promptRefuse, .promptCancel:
                closePrompt(&state)
                attemptEnds(&state)
                state.notice = Notice("not connected: the host key was not trusted", isError: true)
                return [.answerPrompt(.trustHostKey(false))]
            default:
                return []
            }
        case .keyMismatch(let mismatch):
            return mismatchKey(&state, key, mismatch)
        case .secret(let host, let text, let echo, var input, var remember, let offer):
            // Every character is text here, `y` and `n` included; the table's other keys edit or answer.
            switch edit(&input, key) {
            case .edited: break
            case .command(.promptSend):
                closePrompt(&state)
                state.notice = Notice("logging in to \(host)...")
                return [.answerPrompt(.secret(input, remember: offer && remember))]
            case .command(.promptCancel):
                closePrompt(&state)
                attemptEnds(&state)
                state.notice = Notice("not connected: cancelled", isError: true)
                return [.answerPrompt(.cancelled)]
            case .command(.promptRemember):
                if offer { remember.toggle() }
            default:
                return []
            }
            state.mode = .prompt(
                .secret(
                    host: host, prompt: text, echo: echo, input: input, remember: remember,
                    offerRemember: offer))
            return []
        case .vaultPassphrase(let text, var input):
            switch edit(&input, key) {
            case .edited: break
            case .command(.promptSend):
                closePrompt(&state)
                state.notice = Notice("unlocking the vault...")
                return [.answerPrompt(.secret(input, remember: false))]
            case .command(.promptCancel):
                closePrompt(&state)
                state.notice = Notice("the vault stays locked")
                return [.answerPrompt(.cancelled)]
            default:
                return []
            }
            state.mode = .prompt(.vaultPassphrase(prompt: text, input: input))
            return []
        }
    }

    /// What a key does in a dialog with typed text: it typed or edited the text (the dialog stays), or it is a
    /// command for the dialog to act on.
    enum TextKey: Equatable {
        case edited
        case command(Command)
        case ignored
    }

    /// Every character is text (up to the field limit); Backspace erases and Ctrl-U clears, from the table.
    static func edit(_ input: inout String, _ key: Key) -> TextKey {
        if case .char(let ch) = key {
            if input.utf8.count < Validation.maxFieldLength { input.append(ch) }
            return .edited
        }
        switch Keymap.binding(for: key, in: .prompt)?.command {
        case .promptErase:
            if !input.isEmpty { input.removeLast() }
            return .edited
        case .promptClear:
            input = ""
            return .edited
        case let command?: return .command(command)
        case nil: return .ignored
        }
    }

    /// The changed-key and other-type dialogs: the host's name is typed (every character is text), Enter accepts
    /// only that exact name, Esc keeps what is known.
    static func mismatchKey(_ state: inout UIState, _ key: Key, _ original: KeyMismatch) -> [Effect] {
        var mismatch = original
        switch edit(&mismatch.input, key) {
        case .edited:
            mismatch.mistyped = false
            state.mode = .prompt(.keyMismatch(mismatch))
            return []
        case .command(.promptSend):
            guard mismatch.input == mismatch.host else {
                mismatch.mistyped = true
                state.mode = .prompt(.keyMismatch(mismatch))
                return []
            }
            closePrompt(&state)
            switch mismatch.kind {
            case .changed:
                state.connecting = mismatch.retry
                state.notice = Notice("replacing the pinned key of \(mismatch.host), then connecting...")
                return [.answerPrompt(.replaceChangedKey)]
            case .otherType:
                state.notice = Notice("host key trusted; logging in...")
                return [.answerPrompt(.trustHostKey(true))]
            }
        case .command(.promptCancel):
            closePrompt(&state)
            switch mismatch.kind {
            case .changed:
                state.notice = Notice(
                    "not connected: the host key of \(mismatch.host) changed; its pin was kept",
                    isError: true)
                return [.answerPrompt(.cancelled)]
            case .otherType:
                attemptEnds(&state)
                state.notice = Notice("not connected: the host key was not trusted", isError: true)
                return [.answerPrompt(.trustHostKey(false))]
            }
        default:
            return []
        }
    }

    /// The user's answer ends the connect attempt (a refused key, a cancelled question): Enter may start the next
    /// one at once (the app runs it once the ending attempt has closed its connection).
    static func attemptEnds(_ state: inout UIState) { state.connecting = nil }

    /// Back to what the question interrupted, or to browsing.
    static func closePrompt(_ state: inout UIState) {
        state.mode = state.modeAfterPrompt ?? .browse
        state.modeAfterPrompt = nil
    }
}
