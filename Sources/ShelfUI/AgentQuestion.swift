// AgentQuestion: the sshelf agent asking, through the TUI, whether a process may sign with a key marked "confirm
// each use". It shows as a yes/no dialog over whatever was open (a form comes back after the answer); the answer
// goes back as `Effect.answerAgent`. When the agent stops waiting (its deadline), the dialog closes by itself.
import FoundationEssentials

public struct AgentQuestion: Sendable, Equatable {
    public var id: UUID
    public var text: String
    public init(id: UUID, text: String) {
        self.id = id
        self.text = text
    }
}

enum AgentQuestionReducer {
    static func ask(_ state: inout UIState, _ question: AgentQuestion) -> [Effect] {
        // One question at a time (one agent asks one at a time); a second agent's waits its turn by being refused.
        if case .confirm(let open) = state.mode, open.agentQuestion != nil {
            return [.answerAgent(question.id, allow: false)]
        }
        if case .prompt = state.mode {} else if state.mode != .browse { state.modeAfterPrompt = state.mode }
        state.mode = .confirm(
            Confirmation(
                title: "sshelf agent", lines: [question.text, "", "Refused by itself if not answered in time."],
                effect: .answerAgent(question.id, allow: true), yesLabel: "allow", noLabel: "refuse",
                yesNotice: "allowed the signature", noNotice: "refused the signature", agentQuestion: question.id))
        return []
    }

    static func ended(_ state: inout UIState, _ id: UUID) -> [Effect] {
        guard case .confirm(let open) = state.mode, open.agentQuestion == id else { return [] }
        close(&state)
        state.notice = Notice("the agent stopped waiting: the signature was refused", isError: true)
        return []
    }

    /// y or n on the dialog.
    static func answer(_ state: inout UIState, _ allow: Bool, _ confirmation: Confirmation) -> [Effect] {
        guard let id = confirmation.agentQuestion else { return [] }
        close(&state)
        state.notice = Notice(allow ? confirmation.yesNotice : confirmation.noNotice)
        return [.answerAgent(id, allow: allow)]
    }

    private static func close(_ state: inout UIState) {
        state.mode = state.modeAfterPrompt ?? .browse
        state.modeAfterPrompt = nil
    }
}
