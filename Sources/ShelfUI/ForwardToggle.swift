// ForwardToggle: what `t` does on the selected forward rule — stop it when this TUI runs it, otherwise start
// it, after a confirmation when it would listen on a non-loopback address (the port becomes reachable from
// the network).
import Foundation
import ShelfCore

enum ForwardToggle {
    static func run(_ state: inout UIState) -> [Effect] {
        guard let rule = state.selectedRule else { return [] }
        let label = "-\(rule.spec.flag) \(rule.spec)"
        if let live = state.forwardStates[rule.id], live.isRunByTUI {
            state.notice = Notice("stopping \(label)...")
            return [.stopForward(rule.id)]
        }
        if rule.kind != .remote, ForwardLive.listensOnNetwork(rule.bindAddress) {
            state.mode = .confirm(Confirmation(
                title: "Listen on the network?",
                lines: ["\(label) listens on \(rule.bindAddress)",
                        "Port \(rule.bindPort) becomes reachable from other machines,",
                        "not only from this one. Start it anyway?"],
                effect: .startForward(rule.id, allowPublicBind: true),
                yesLabel: "start", noLabel: "cancel", yesNotice: "starting \(label)...",
                noNotice: "not started"))
            return []
        }
        state.notice = Notice("starting \(label)...")
        // Shown at once; the app's next state read replaces it.
        state.forwardStates[rule.id] = ForwardLive(phase: .starting, runner: .tui)
        return [.startForward(rule.id, allowPublicBind: false)]
    }
}
