// FilesOrder: a folder's entries in the pane's order (folders first, then names in natural order) while the folder
// is read — each name's order key worked out once as it arrives, and each new batch sorted on its own and merged into
// the order so far. A folder of 10,000 was sorted whole a few times a second, folding and splitting both names at
// every comparison: most of its listing's time (docs/PERFORMANCE.md, "The file pane").
import FoundationEssentials
import ShelfCore

public struct FilesOrder: Sendable {
    public private(set) var entries: [FileEntry] = []
    private var keys: [NaturalOrder.Key] = []
    /// The indices of the entries already ordered (the first `ordered.count`), in the pane's order.
    private var ordered: [Int] = []

    public init() {}

    public var count: Int { entries.count }

    public mutating func append(_ entry: FileEntry) {
        entries.append(entry)
        keys.append(NaturalOrder.Key(entry.shown))
    }

    /// Every entry so far, in the pane's order (the same as FilesPane.precedes).
    public mutating func sorted() -> [FileEntry] {
        if ordered.count < entries.count {
            let fresh = (ordered.count..<entries.count).sorted(by: precedes)
            var merged: [Int] = []
            merged.reserveCapacity(entries.count)
            var old = 0, new = 0
            while old < ordered.count && new < fresh.count {
                if precedes(fresh[new], ordered[old]) {
                    merged.append(fresh[new])
                    new += 1
                } else {
                    merged.append(ordered[old])
                    old += 1
                }
            }
            merged += ordered[old...]
            merged += fresh[new...]
            ordered = merged
        }
        return ordered.map { entries[$0] }
    }

    /// `entries` in the pane's order.
    public static func sorted(_ entries: [FileEntry]) -> [FileEntry] {
        var order = FilesOrder()
        order.entries.reserveCapacity(entries.count)
        order.keys.reserveCapacity(entries.count)
        for entry in entries { order.append(entry) }
        return order.sorted()
    }

    private func precedes(_ a: Int, _ b: Int) -> Bool {
        if entries[a].opens != entries[b].opens { return entries[a].opens }
        return NaturalOrder.Key.precedes(keys[a], keys[b])
    }
}
