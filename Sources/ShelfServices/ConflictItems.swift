// ConflictItems: the store's merge conflicts worded for the TUI's conflict list (`C`) — the same words as
// `sshelf sync conflicts`: values through ConflictWords (keys as fingerprints), devices by name, times to the minute.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfStore
import ShelfSync

public enum ConflictItems {
    public static func load(_ store: Store) throws -> [ConflictItem] {
        let names = try GroupInfo.names(store)
        let me = try store.deviceID
        return try store.conflicts().reversed().map { item($0, names: names, me: me) }
    }

    public static func item(_ conflict: StoredConflict, names: [String: String], me: String) -> ConflictItem {
        func who(_ id: String, _ at: Date?) -> String {
            guard !id.isEmpty else { return "" }
            let name =
                id == me
                ? "this device" : names[id].map { "\(Display.safe($0)) (\(id.prefix(8)))" } ?? "device \(id.prefix(8))"
            return name
                + (at.map { ", " + ISO8601.format($0).prefix(16).replacing("T", with: " ") } ?? "")
        }
        let record = conflict.name.isEmpty ? String(conflict.record.prefix(8)) : Display.safe(conflict.name)
        return ConflictItem(
            id: conflict.id, record: "\(conflict.kind) \(record)", field: conflict.field,
            kept: Display.safe(ConflictWords.side(conflict.kept)),
            other: Display.safe(ConflictWords.side(conflict.lost)),
            keptBy: who(conflict.keptBy, conflict.keptAt), otherBy: who(conflict.lostBy, conflict.lostAt),
            why: dispute(conflict, who: { who($0, nil) }) ?? ConflictWords.why(conflict.why), isNew: !conflict.seen,
            settled: conflict.settled.map { side in
                let taken = side == "later" ? "a later edit" : side
                return conflict.settledBy.map { "\(taken), by \(who($0, nil))" } ?? taken
            },
            settleable: conflict.why != "deleted" && !conflict.lost.hasPrefix("("))
    }

    /// A disputed conflict's words: each device's choice and the value that stands until it is settled again.
    static func dispute(_ conflict: StoredConflict, who: (String) -> String) -> String? {
        guard conflict.state == "disputed", let stands = conflict.stands else { return nil }
        let choices = conflict.choices.map { "\(who($0.by)) took \($0.took)" }.joined(separator: ", ")
        return "disputed: \(choices), neither knowing of the other's choice; \(stands) stands (the later choice) "
            + "until one is taken again"
    }
}
