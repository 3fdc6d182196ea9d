// SQLitePackedRows: rows of values for one statement packed into two flat buffers — the texts' bytes one after
// another, and a fixed-size record per value — so a bulk insert binds each text where it lies (no copy by SQLite, no
// String touched): one thread packs the rows while another runs the inserts, and no reference count crosses between.
public struct SQLitePackedRows: Sendable {
    enum Kind: UInt8, Sendable { case null, int, double, text, blob }

    /// One value: its kind, its number (an int, a double's bits), or where its bytes are in `bytes`.
    struct Value: Sendable {
        var kind: Kind
        var number: Int64 = 0
        var offset = 0
        var count = 0
    }

    var bytes: [UInt8] = []
    var values: [Value] = []
    /// Values per row (every row has as many: they are bound to one statement).
    public private(set) var columns = 0
    public private(set) var count = 0

    public init(reservingRows rows: Int = 0, bytesPerRow: Int = 0) {
        bytes.reserveCapacity(rows * bytesPerRow)
    }

    public var isEmpty: Bool { count == 0 }

    /// Adds a row value by value (`fill` appends each with `appendNull`, `appendInt`… in column order), with no array
    /// of values made for it; every row of a pack has the same number of values.
    public mutating func appendRow(_ fill: (inout SQLitePackedRows) -> Void) {
        let first = values.count
        if values.capacity == 0 { values.reserveCapacity(32 * max(bytes.capacity / 256, 16)) }
        fill(&self)
        let added = values.count - first
        precondition(count == 0 || added == columns, "every packed row has the same columns")
        columns = added
        count += 1
    }

    public mutating func appendNull() { values.append(Value(kind: .null)) }
    public mutating func appendInt(_ v: Int) { values.append(Value(kind: .int, number: Int64(v))) }
    public mutating func appendDouble(_ v: Double) {
        values.append(Value(kind: .double, number: Int64(bitPattern: v.bitPattern)))
    }
    public mutating func appendText(_ text: String) {
        var text = text
        let offset = bytes.count
        text.withUTF8 { bytes.append(contentsOf: $0) }
        values.append(Value(kind: .text, offset: offset, count: bytes.count - offset))
    }

    /// Adds a row; every row of a pack has the same number of values.
    public mutating func append(_ row: [SQLiteValue]) {
        precondition(count == 0 || row.count == columns, "every packed row has the same columns")
        columns = row.count
        if values.capacity == 0 { values.reserveCapacity(row.count * max(bytes.capacity / 256, 16)) }
        for value in row {
            switch value {
            case .null: values.append(Value(kind: .null))
            case .int(let v): values.append(Value(kind: .int, number: Int64(v)))
            case .double(let v): values.append(Value(kind: .double, number: Int64(bitPattern: v.bitPattern)))
            case .text(var text):
                let offset = bytes.count
                text.withUTF8 { bytes.append(contentsOf: $0) }
                values.append(Value(kind: .text, offset: offset, count: bytes.count - offset))
            case .blob(let blob):
                values.append(Value(kind: .blob, offset: bytes.count, count: blob.count))
                bytes.append(contentsOf: blob)
            }
        }
        count += 1
    }
}
