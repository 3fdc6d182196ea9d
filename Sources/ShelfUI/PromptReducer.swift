// PromptReducer: keys inside a connect-time dialog. The answer leaves the state at once: the dialog closes (its
// typed input with it) before the effect carrying the answer runs.
import Foundation
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
            if case .char(let ch) = key {
                guard input.utf8.count < Validation.maxFieldLength else { return [] }
                input.append(ch)
            } else {
                switch Keymap.binding(for: key, in: .prompt)?.command {
                case .promptSend:
                    closePrompt(&state)
                    state.notice = Notice("logging in to \(host)...")
                    return [.answerPrompt(.secret(input, remember: offer && remember))]
                case .promptCancel:
                    closePrompt(&state)
                    attemptEnds(&state)
                    state.notice = Notice("not connected: cancelled", isError: true)
                    return [.answerPrompt(.cancelled)]
                case .promptErase:
                    if !input.isEmpty { input.removeLast() }
                case .promptClear:
                    input = ""
                case .promptRemember:
                    if offer { remember.toggle() }
                default:
                    return []
                }
            }
            state.mode = .prompt(.secret(host: host, prompt: text, echo: echo, input: input, remember: remember,
                                         offerRemember: offer))
            return []
        case .vaultPassphrase(let text, var input):
            if case .char(let ch) = key {
                guard input.utf8.count < Validation.maxFieldLength else { return [] }
                input.append(ch)
            } else {
                switch Keymap.binding(for: key, in: .prompt)?.command {
                case .promptSend:
                    closePrompt(&state)
                    state.notice = Notice("unlocking the vault...")
                    return [.answerPrompt(.secret(input, remember: false))]
                case .promptCancel:
                    closePrompt(&state)
                    state.notice = Notice("the vault stays locked")
                    return [.answerPrompt(.cancelled)]
                case .promptErase:
                    if !input.isEmpty { input.removeLast() }
                case .promptClear:
                    input = ""
                default:
                    return []
                }
            }
            state.mode = .prompt(.vaultPassphrase(prompt: text, input: input))
            return []
        }
    }

    /// The changed-key and other-type dialogs: the host's name is typed (every character is text), Enter accepts
    /// only that exact name, Esc keeps what is known.
    static func mismatchKey(_ state: inout UIState, _ key: Key, _ original: KeyMismatch) -> [Effect] {
        var mismatch = original
        if case .char(let ch) = key {
            guard mismatch.input.utf8.count < Validation.maxFieldLength else { return [] }
            mismatch.input.append(ch)
            mismatch.mistyped = false
            state.mode = .prompt(.keyMismatch(mismatch))
            return []
        }
        switch Keymap.binding(for: key, in: .prompt)?.command {
        case .promptSend:
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
        case .promptCancel:
            closePrompt(&state)
            switch mismatch.kind {
            case .changed:
                state.notice = Notice("not connected: the host key of \(mismatch.host) changed; its pin was kept",
                                      isError: true)
                return [.answerPrompt(.cancelled)]
            case .otherType:
                attemptEnds(&state)
                state.notice = Notice("not connected: the host key was not trusted", isError: true)
                return [.answerPrompt(.trustHostKey(false))]
            }
        case .promptErase:
            if !mismatch.input.isEmpty { mismatch.input.removeLast() }
        case .promptClear:
            mismatch.input = ""
        default:
            return []
        }
        mismatch.mistyped = false
        state.mode = .prompt(.keyMismatch(mismatch))
        return []
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
