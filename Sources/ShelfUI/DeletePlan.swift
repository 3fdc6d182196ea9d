// DeletePlan: the confirmation text for a delete, saying everything else that goes with it.
import FoundationEssentials
import ShelfCore

enum DeletePlan {
    static func host(_ host: ShelfCore.Host, catalog: Catalog) -> Confirmation {
        let rules = catalog.rulesByHost[host.id]?.count ?? 0
        var lines = ["\(host.name) (\(host.destination))"]
        lines.append(
            rules == 0
                ? "It has no forward rules."
                : "Its \(plural(rules, "forward rule")) \(rules == 1 ? "goes" : "go") too.")
        let dependents = catalog.names(jumpingThrough: host.id)
        if !dependents.isEmpty {
            lines.append("Jumped through by \(dependents.joined(separator: ", ")); their jump will point nowhere.")
        }
        return Confirmation(title: "Delete host \(host.name)?", lines: lines, effect: .deleteHost(host.id))
    }

    static func group(_ id: UUID, catalog: Catalog) -> Confirmation {
        let tree = catalog.tree
        let subtree = tree.subtree(of: id)
        let hosts = catalog.rows(inGroups: subtree)
        let rules = hosts.reduce(0) { $0 + (catalog.rulesByHost[catalog.table.id($1)]?.count ?? 0) }
        let path = tree.path(of: id)
        var lines = [path]
        if subtree.count == 1 && hosts.isEmpty {
            lines.append("It is empty; nothing else goes.")
        } else {
            lines.append(
                "Also goes: \(plural(subtree.count - 1, "subgroup")), \(plural(hosts.count, "host")) and "
                    + "\(plural(rules, "forward rule")).")
        }
        return Confirmation(title: "Delete group \(path)?", lines: lines, effect: .deleteGroup(id))
    }

    static func plural(_ n: Int, _ word: String) -> String { Counted.words(n, word) }
}
