// ForwardToggle: what `t` does on the selected forward rule — stop it when a TUI started it (this one or an earlier
// one: the rules it starts outlive it), otherwise start it, after a confirmation when it would listen on a
// non-loopback address (the port becomes reachable from the network) — and the title bar's word on it, which
// follows the rule's published state ("starting …" becomes "forwarding …", "stopping …" becomes "stopped …").
import FoundationEssentials
import ShelfCore

/// A `t` whose outcome the title bar still waits for.
public struct ForwardTransition: Sendable, Equatable {
    public var ruleID: UUID
    public var label: String
    public var starting: Bool
}

enum ForwardToggle {
    static func run(_ state: inout UIState) -> [Effect] {
        guard let rule = state.selectedRule else { return [] }
        let label = "-\(rule.spec.flag) \(rule.spec)"
        if let live = state.forwardStates[rule.id], live.isRunByTUI {
            state.notice = Notice("stopping \(label)...")
            state.forwardTransition = ForwardTransition(ruleID: rule.id, label: label, starting: false)
            return [.stopForward(rule.id)]
        }
        if rule.listensOnNetwork {
            state.mode = .confirm(
                Confirmation(
                    title: "Listen on the network?",
                    lines: [
                        "\(label) listens on \(rule.bindAddress)",
                        "Port \(rule.bindPort) becomes reachable from other machines,",
                        "not only from this one. Start it anyway?",
                    ],
                    effect: .startForward(rule.id, allowPublicBind: true),
                    yesLabel: "start", noLabel: "cancel", yesNotice: "starting \(label)...",
                    noNotice: "not started"))
            return []
        }
        state.notice = Notice("starting \(label)...")
        starting(&state, rule.id)
        return [.startForward(rule.id, allowPublicBind: false)]
    }

    /// A start under way: shown at once in the pane (the app's next state read replaces it) and awaited in the title.
    static func starting(_ state: inout UIState, _ ruleID: UUID) {
        guard let rule = state.catalog.rulesByHost.values.joined().first(where: { $0.id == ruleID }) else { return }
        state.forwardStates[ruleID] = ForwardLive(phase: .starting, runner: .tui)
        state.forwardTransition = ForwardTransition(
            ruleID: ruleID, label: "-\(rule.spec.flag) \(rule.spec)",
            starting: true)
    }

    /// New published states: a start that became active or failed, or a stop that took effect, replaces the
    /// title's "starting …"/"stopping …" (or an empty title: a key pressed meanwhile cleared it) with the outcome.
    static func settle(_ state: inout UIState, _ states: [UUID: ForwardLive]) {
        guard let transition = state.forwardTransition else { return }
        let waiting = transition.starting ? "starting \(transition.label)..." : "stopping \(transition.label)..."
        let outcome: Notice
        switch (transition.starting, states[transition.ruleID]?.phase) {
        case (true, .active?): outcome = Notice("forwarding \(transition.label)")
        case (true, .failed?):
            outcome = Notice(
                "\(transition.label) failed: \(states[transition.ruleID]?.lastError ?? "unknown reason")",
                isError: true)
        case (false, nil): outcome = Notice("stopped \(transition.label)")
        default: return
        }
        state.forwardTransition = nil
        if state.notice == nil || state.notice?.text == waiting { state.notice = outcome }
    }
}
