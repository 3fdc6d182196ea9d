// AutostartMove: after the forward form marked a rule autostart, the host's credentials that open only while the
// vault session is unlocked (so `forward up` would stop logging in after the idle timeout), asked about in a y/N
// dialog: "y" moves them to the class unattended logins read (`Effect.moveCredentials`), anything else keeps them.
import FoundationEssentials
import ShelfCore

public struct AutostartMove: Sendable, Equatable {
    public struct Item: Sendable, Equatable {
        public var key: ReferenceKey
        /// "the private key of identity 'deploy'".
        public var what: String
        /// The class it is stored in now ("whenUnlockedThisDeviceOnly").
        public var stored: String
        public init(key: ReferenceKey, what: String, stored: String) {
            self.key = key
            self.what = what
            self.stored = stored
        }
    }

    /// "-L 127.0.0.1:5432:localhost:5432".
    public var rule: String
    public var items: [Item]
    /// The class `forward up` reads after one unlock per login ("afterFirstUnlockThisDeviceOnly").
    public var target: String
    public init(rule: String, items: [Item], target: String) {
        self.rule = rule
        self.items = items
        self.target = target
    }
}

enum AutostartMoveReducer {
    /// Opens the question over the host list (the form has closed by now); a dialog already open (a connect's
    /// question, the agent's) is not pushed aside: the title bar says what to run instead.
    static func ask(_ state: inout UIState, _ move: AutostartMove) -> [Effect] {
        let them = move.items.count == 1 ? "it" : "them"
        guard !state.mode.isDialog else {
            state.notice = Notice(
                "\(move.rule) stops logging in after the vault's idle timeout: "
                    + "'sshelf vault set-class KEY \(move.target)' keeps it up", isError: true)
            return []
        }
        state.mode = .confirm(
            Confirmation(
                title: "Keep this tunnel up unattended?",
                lines: ["\(move.rule) runs under 'sshelf forward up', which reads"]
                    + move.items.map { "  \($0.what) (\($0.stored))" }
                    + [
                        "only while the vault session is unlocked: after its idle",
                        "timeout the tunnel stops logging in.",
                        "Move \(them) to \(move.target)?",
                    ],
                effect: .moveCredentials(move.items.map(\.key), to: move.target),
                yesLabel: "move", noLabel: "keep", yesNotice: "moving to \(move.target)...",
                noNotice: "kept where \(them == "it" ? "it is" : "they are"); "
                    + "'sshelf vault set-class' moves \(them) later"))
        return []
    }
}
