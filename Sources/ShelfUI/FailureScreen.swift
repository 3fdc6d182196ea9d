// FailureScreen: a store or vault that cannot be opened, shown on the whole screen with the error and the hint
// (never a title-bar line cut at the edge, never "loading..." forever). Without the store there is nothing to
// browse: `r` tries again, `q` quits. Without the vault, browsing can go on (Esc): what needs it says so.
import FoundationEssentials

public struct FailureScreen: Sendable, Equatable {
    public enum Subject: Sendable, Equatable {
        case store
        case vault
    }

    public var subject: Subject
    public var message: String
    public var hint: String?

    public init(subject: Subject, message: String, hint: String?) {
        self.subject = subject
        self.message = message
        self.hint = hint
    }

    public var title: String {
        switch subject {
        case .store: "The host store cannot be opened"
        case .vault: "The vault cannot be opened"
        }
    }
}

enum FailureReducer {
    static func key(_ state: inout UIState, _ key: Key, _ failure: FailureScreen) -> [Effect] {
        guard let binding = Keymap.binding(for: key, in: .failure) else { return [] }
        if let reason = binding.disabledReason(state) {
            state.notice = Notice("\(binding.description): \(reason)", isError: true)
            return []
        }
        switch binding.command {
        case .failureQuit:
            return Reducer.quit(&state)
        case .failureRetry:
            state.failure = nil
            state.notice = Notice("trying again...")
            return [.load]
        case .failureContinue:
            state.failure = nil
            state.dismissedVaultFailure = failure.message
            state.notice = Notice("going on without the vault", isError: true)
            return []
        default:
            return []
        }
    }
}
