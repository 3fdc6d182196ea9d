// RankedRows: a search's results, best first, ranked only as far as they are read. The first screenfuls are ranked
// when the results are made; the order of the rest — 90,000 hosts for the first key of a search — is worked out the
// first time a row past them is read (the user scrolls down, or a host is looked for in the list). Also plain lists
// of rows (the unfiltered list), so the TUI has one type for whatever it shows.
import FoundationEssentials

public struct RankedRows: RandomAccessCollection, Equatable, Sendable, ExpressibleByArrayLiteral {
    final class Storage: @unchecked Sendable {
        let head: [Int32]
        let count: Int
        private let lock = Lock()
        private var rest: (@Sendable () -> [Int32])?
        private var whole: [Int32]?

        init(head: [Int32], count: Int, rest: (@Sendable () -> [Int32])?) {
            self.head = head
            self.count = count
            self.rest = rest
            whole = rest == nil ? head : nil
        }

        /// Every row in order, ranked now if it was not yet.
        var all: [Int32] {
            lock.lock()
            defer { lock.unlock() }
            if let whole { return whole }
            let made = rest?() ?? head
            whole = made
            rest = nil
            return made
        }

        var isComplete: Bool {
            lock.lock()
            defer { lock.unlock() }
            return whole != nil
        }
    }

    let storage: Storage

    /// Rows already in their order.
    public init(_ rows: [Int32]) { storage = Storage(head: rows, count: rows.count, rest: nil) }

    public init(arrayLiteral rows: Int32...) { self.init(rows) }

    /// `count` rows whose first ones are `head`; `rest` gives all of them in order (`head` first) when asked.
    init(head: [Int32], count: Int, rest: @escaping @Sendable () -> [Int32]) {
        storage = Storage(head: head, count: count, rest: rest)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { storage.count }

    public subscript(position: Int) -> Int32 {
        position < storage.head.count ? storage.head[position] : storage.all[position]
    }

    /// Where `row` is: among the first rows without ranking the rest, else in the whole order.
    public func firstIndex(of row: Int32) -> Int? {
        storage.head.firstIndex(of: row)
            ?? (storage.isComplete && storage.head.count == count ? nil : storage.all.firstIndex(of: row))
    }

    /// True once every row's place is known (always, for plain lists).
    public var isComplete: Bool { storage.isComplete }

    public static func == (a: RankedRows, b: RankedRows) -> Bool {
        a.storage === b.storage || (a.count == b.count && a.elementsEqual(b))
    }
}
