// Marks: the hosts chosen for a run (`!`) — Space marks or unmarks the selected host and moves down, `*` marks every
// host listed (all results of a search), or unmarks them when all are marked already. Marks are host ids, so they
// survive a search, a sort and a reload (a host deleted elsewhere drops out).
import FoundationEssentials

enum Marks {
    static func toggle(_ state: inout UIState) -> [Effect] {
        guard let host = state.selectedHost else { return [] }
        if state.marks.remove(host.id) == nil { state.marks.insert(host.id) }
        Reducer.move(&state, by: 1)
        return []
    }

    static func all(_ state: inout UIState) {
        let ids = state.visible.map { state.catalog.table.id(Int($0)) }
        if ids.allSatisfy(state.marks.contains) {
            state.marks.subtract(ids)
            state.notice = Notice("unmarked \(ids.count) host\(ids.count == 1 ? "" : "s")")
        } else {
            state.marks.formUnion(ids)
            state.notice = Notice("marked \(ids.count) host\(ids.count == 1 ? "" : "s"): ! runs a command on them")
        }
    }
}
