// SharedNames: hosts whose name another host has too (ignoring ASCII case, the unique-name rule's comparison) —
// sync can bring two devices' "lab" together. The catalog's rows are in list order (name ignoring case, then id),
// so hosts sharing a name are neighbours: finding them reads the rows next to one, never the whole table. The
// list marks them with the NAME@ID every command takes for them.
import FoundationEssentials
import ShelfCore

extension Catalog {
    /// The rows of every host named as row `row` is (itself included), in list order.
    public func rowsSharingName(with row: Int) -> [Int] {
        guard row >= 0, row < count else { return [] }
        let name = table.name(row)
        var first = row
        var last = row
        while first > 0, Self.sameName(table.name(first - 1), name) { first -= 1 }
        while last + 1 < count, Self.sameName(table.name(last + 1), name) { last += 1 }
        return Array(first...last)
    }

    /// Whether another host has row `row`'s name.
    public func sharesName(_ row: Int) -> Bool {
        guard row >= 0, row < count else { return false }
        let name = table.name(row)
        return (row > 0 && Self.sameName(table.name(row - 1), name))
            || (row + 1 < count && Self.sameName(table.name(row + 1), name))
    }

    /// How commands name the host in row `row`: its name, or NAME@ID when the name is shared.
    public func reference(_ row: Int) -> String {
        let name = table.name(row)
        return sharesName(row) ? "\(name)@\(String(table.id(row).uuidString.lowercased().prefix(8)))" : name
    }

    /// Equal ignoring ASCII case (SQLite's NOCASE, the unique-name rule's comparison).
    static func sameName(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && zip(a.utf8, b.utf8).allSatisfy { lower($0) == lower($1) }
    }

    private static func lower(_ byte: UInt8) -> UInt8 { (65...90).contains(byte) ? byte + 32 : byte }
}
