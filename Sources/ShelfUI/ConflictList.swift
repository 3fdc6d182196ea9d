// ConflictList: the merge-conflict list (`C`): each conflict as words the app prepared (record, field, the kept
// value and the other, who wrote each and when), and its keys — move, take the other value, keep the kept one
// (either is written as an edit that syncs, as `sshelf sync conflicts resolve` does), back.
import FoundationEssentials
import ShelfCore

enum ConflictList {
    static func key(_ state: inout UIState, _ key: Key) -> [Effect] {
        state.notice = nil
        guard let binding = Keymap.binding(for: key, in: .conflicts) else {
            if key == .ctrl("c") { return Reducer.quit(&state) }
            return []
        }
        if let reason = binding.disabledReason(state) {
            state.notice = Notice("\(binding.description): \(reason)", isError: true)
            return []
        }
        switch binding.command {
        case .conflictDown: state.conflictCursor = Reducer.clamp(state.conflictCursor + 1, count: state.conflicts.count)
        case .conflictUp: state.conflictCursor = Reducer.clamp(state.conflictCursor - 1, count: state.conflicts.count)
        case .conflictTakeOther, .conflictKeep:
            guard let conflict = state.selectedConflict else { return [] }
            let other = binding.command == .conflictTakeOther
            state.notice = Notice(
                "settling conflict \(conflict.id): \(other ? "taking the other value" : "keeping the kept value")...")
            return [.settleConflict(conflict.id, takeOther: other)]
        case .conflictClose: state.mode = .browse
        default: break
        }
        return []
    }

    /// Why a conflict cannot be settled now, or nil.
    static let needsOpenConflict: @Sendable (UIState) -> String? = { state in
        guard let conflict = state.selectedConflict else { return "no conflict selected" }
        if let settled = conflict.settled { return "settled already (took \(settled))" }
        return conflict.settleable ? nil : "the record was deleted; a deletion is final"
    }
}
