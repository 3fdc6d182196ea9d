// StoreBulk: writes sized for bulk work (imports of 100,000 hosts). A bulk write transaction grows SQLite's page
// cache so each page is written once, at commit, instead of spilling to the WAL mid-transaction and being read
// back. The catalog triggers step aside for it: a statement that fires a trigger keeps a statement journal (a
// copy of every page it changes, so that statement alone can be rolled back), which made each host's upsert copy
// a dozen pages; instead the token is changed once at the end. Dropping and re-creating the triggers happens
// inside the same transaction, so no other connection ever sees the table without them, and a failure rolls them
// back with everything else. New hosts go in by `insert(newHosts:)` or, made on another core as they go in,
// `insert(newHostsInOrder:make:)`: in id order, with the name index built after them when a large batch is not in
// name order, and their change stamps written in two statements.
import Dispatch
import FoundationEssentials
import Glibc
import ShelfCore

extension Store {
    /// Pages of cache for a bulk write, back to SQLite's default after: 4 MiB. The rows go in id order, so every
    /// b-tree but one small index (hosts by group) is appended to: a full page is never touched again and can be
    /// written to the WAL before the commit at no cost, while its interior pages stay cached. 128 MiB kept all of a
    /// 100,000-host import's pages (about 55 MB) until the commit, for no gain in time; 16 MiB was still a tenth of its
    /// peak, where 4 MiB write the same rows in the same time (docs/PERFORMANCE.md, "Import").
    static let bulkCacheKiB = 4 * 1024

    /// From this many new hosts (and at least as many as already stored), the hosts table's secondary indexes are
    /// dropped for the insert and built again after it: building an index sorts its keys once, where inserting
    /// rows one by one puts each key at a random place in it.
    static let indexRebuildMinimum = 2_000

    /// Runs `body` in one write transaction (as `write`) with a large page cache and one catalog token change.
    public func bulkWrite<T>(_ body: (Store) throws -> T) throws -> T {
        try db.execute("PRAGMA cache_size=-\(Store.bulkCacheKiB)")
        defer { try? db.execute("PRAGMA cache_size=-2000") }
        return try write { store in
            let triggers = try store.catalogToken() != nil
            if triggers {
                try store.db.execute(Store.catalogTriggers.map { "DROP TRIGGER \($0);" }.joined())
            }
            let result = try body(store)
            if triggers {
                try store.db.execute(
                    Store.catalogTriggerSQL
                        + "UPDATE catalog_version SET token = randomblob(16) WHERE id = 1;")
            }
            return result
        }
    }

    /// Adds hosts that were never saved — fresh random ids, as an import makes for the names it has not seen — with
    /// the same rows and the same stamps as saving each (`save(hosts:)`: a new record gets one stamp covering every
    /// field group and is queued for sync), in less work: no lookup of a clock that cannot exist, rows in id order
    /// (every index keyed by id — the hosts', the clocks', the outbox's — is appended to, not split at random
    /// places), and the stamps in two statements for all. A host whose id is already stored, or was deleted (its
    /// tombstone keeps the id), fails the whole call with a constraint error: nothing is overwritten.
    public func insert(newHosts hosts: [ShelfCore.Host]) throws {
        guard !hosts.isEmpty else { return }
        try write { store in
            let ids = hosts.map(\.id)
            let sorted = zip(ids, ids.dropFirst()).allSatisfy { Store.idPrecedes($0, $1) }
            let order = sorted ? Array(ids.indices) : ids.indices.sorted { Store.idPrecedes(ids[$0], ids[$1]) }
            // Read every time (not only for large batches), so an import runs the same statements whatever its size.
            let indexes = try store.db.query(
                "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'hosts' AND sql IS NOT NULL"
            ) { ($0.text(0), $0.text(1)) }
            // Hosts whose ids were handed out in name order (as an import does) are in the name index's order too:
            // every index is appended to, and nothing needs building again.
            let names = hosts.map(\.name)
            let inNameOrder = zip(order, order.dropFirst()).allSatisfy {
                !Store.listOrderPrecedes(names[$0.1], names[$0.0])
            }
            let stored = try store.hostCount()
            let rebuild = !inNameOrder && hosts.count >= Store.indexRebuildMinimum && hosts.count >= stored
            if rebuild {
                try store.db.execute(indexes.map { "DROP INDEX \"\($0.0)\";" }.joined())
            }
            try store.insert(newHostsInOrder: order.count) { hosts[order[$0]] }
            if rebuild {
                try store.db.execute(indexes.map { $0.1 + ";" }.joined())
            }
        }
    }

    /// Adds `count` hosts that were never saved, as `insert(newHosts:)` does, each made by `make` on another core a few
    /// blocks ahead of the inserts (an import finishes its hosts there — jump chains, validation — while this thread
    /// writes the rows before them). `make(k)` gives the k-th host, or nil for one not to be added; it is called once
    /// for each k, in order, from one thread (another than this one when there are many), and never after this
    /// returns or throws. Made in the store's id order (ascending ids, names in list order, as an import hands out
    /// ids) every index is appended to; in any other order the rows are the same, only slower to write.
    public func insert(newHostsInOrder count: Int, make: (Int) -> ShelfCore.Host?) throws {
        guard count > 0 else { return }
        try write { store in
            let insert = try store.db.cached(HostRow.insert)
            var idLists: [(ids: String, count: Int)] = []
            try Store.rowBlocks(count: count, make: make) { block in
                try store.db.runEach(insert, block.rows)
                if block.rows.count > 0 { idLists.append((block.ids, block.rows.count)) }
            }
            try store.stampNew(.host, idLists: idLists)
        }
    }

    /// `a` before `b` in the list order (SQLite's NOCASE, as `hosts_by_folded_name` sorts: the bytes with ASCII
    /// capitals as small letters, compared byte by byte, a prefix first).
    public static func listOrderPrecedes(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { a in
            b.withUTF8 { b in
                for i in 0..<min(a.count, b.count) {
                    let x = a[i] &- 0x41 < 26 ? a[i] | 0x20 : a[i]
                    let y = b[i] &- 0x41 < 26 ? b[i] | 0x20 : b[i]
                    if x != y { return x < y }
                }
                return a.count < b.count
            }
        }
    }

    /// One block of hosts as the inserts take them: their rows packed (no String crosses to the inserting thread),
    /// and their ids as JSON strings joined by commas (for the stamps' `json_each`), both made on the maker's core.
    struct RowBlock: Sendable {
        var rows = SQLitePackedRows()
        var ids = ""
    }

    /// Hands `body` the rows of `make(0)`, `make(1)` … in blocks, made on another core a few blocks ahead: the inserts,
    /// which only this thread can run, need not wait for them. Returns (or throws) only once the maker has stopped.
    static func rowBlocks(count: Int, make: (Int) -> ShelfCore.Host?, _ body: (RowBlock) throws -> Void) throws {
        let block = 2_048
        let blocks = (count + block - 1) / block
        func rows(_ range: Range<Int>) -> RowBlock {
            var made = RowBlock(rows: SQLitePackedRows(reservingRows: range.count, bytesPerRow: 256))
            made.ids.reserveCapacity(range.count * 39)
            var scratch: [StoredValue] = []
            for k in range {
                guard let host = make(k) else { continue }
                HostRow.pack(host, into: &made.rows, scratch: &scratch)
                if !made.ids.isEmpty { made.ids += "," }
                made.ids += "\""
                made.ids += host.id.storeText
                made.ids += "\""
            }
            return made
        }
        guard blocks > 1 else {
            try body(rows(0..<count))
            return
        }
        try withoutActuallyEscaping(rows) { rows in
            let made = RowBlocks(count: blocks)
            let maker = BlockMaker(make: rows)
            // Back-pressure: at most four blocks made and not yet inserted.
            let room = DispatchSemaphore(value: 4)
            let stopped = DispatchSemaphore(value: 0)
            let cancelled = ManagedAtomicFlag()
            DispatchQueue.global(qos: .userInitiated).async {
                for b in 0..<blocks {
                    room.wait()
                    if cancelled.isSet { break }
                    made.put(b, maker.make(b * block..<min((b + 1) * block, count)))
                }
                stopped.signal()
            }
            // The maker calls `make`, which must not be called after this returns: wait for it whatever happens.
            defer {
                cancelled.set()
                room.signal()
                stopped.wait()
            }
            for b in 0..<blocks {
                try body(made.take(b))
                room.signal()
            }
        }
    }

    /// The block maker as the other thread holds it (rowBlocks waits for that thread before its closure goes).
    struct BlockMaker: @unchecked Sendable {
        let make: (Range<Int>) -> RowBlock
    }

    /// Blocks of rows, each put by the maker and taken once by the inserter.
    final class RowBlocks: @unchecked Sendable {
        private var blocks: [RowBlock]
        private let ready: [DispatchSemaphore]
        private let lock = Lock()
        init(count: Int) {
            blocks = Array(repeating: RowBlock(), count: count)
            ready = (0..<count).map { _ in DispatchSemaphore(value: 0) }
        }
        func put(_ index: Int, _ rows: RowBlock) {
            lock.lock()
            blocks[index] = rows
            lock.unlock()
            ready[index].signal()
        }
        func take(_ index: Int) -> RowBlock {
            ready[index].wait()
            lock.lock()
            defer { lock.unlock() }
            let rows = blocks[index]
            blocks[index] = RowBlock()
            return rows
        }
    }

    /// A flag one thread sets and another reads.
    final class ManagedAtomicFlag: @unchecked Sendable {
        private var value = false
        private let lock = Lock()
        var isSet: Bool {
            lock.lock()
            defer { lock.unlock() }
            return value
        }
        func set() {
            lock.lock()
            value = true
            lock.unlock()
        }
    }

    /// The positions of `names` in list order. Their keys (the names' bytes, capitals as small letters) are made one
    /// after another in one array: a key array for each name was 100,000 small arrays (7 MB) made on the other core
    /// at the start of an import, while the document was still being freed; comparing the names where they lie took
    /// 3 % more instructions.
    public static func listOrder(_ names: [String]) -> [Int] {
        var keys: [UInt8] = []
        keys.reserveCapacity(names.reduce(0) { $0 + $1.utf8.count })
        var starts: [Int] = []
        starts.reserveCapacity(names.count + 1)
        for name in names {
            starts.append(keys.count)
            keys.append(contentsOf: name.utf8)
        }
        starts.append(keys.count)
        for i in keys.indices where keys[i] &- 0x41 < 26 { keys[i] |= 0x20 }
        return keys.withUnsafeBufferPointer { keys in
            names.indices.sorted { a, b in
                let aCount = starts[a + 1] - starts[a]
                let bCount = starts[b + 1] - starts[b]
                let common = min(aCount, bCount)
                guard common > 0, let base = keys.baseAddress else { return aCount < bCount }
                let order = memcmp(base + starts[a], base + starts[b], common)
                return order != 0 ? order < 0 : aCount < bCount
            }
        }
    }

    /// Fresh random (version 4) ids in ascending order (the store's order of ids): handed out to new hosts in name
    /// order, they make `insert(newHosts:)` append to every index.
    public static func ascendingIDs(_ count: Int) -> [UUID] {
        var bytes = [UInt8](repeating: 0, count: 16 * count)
        bytes.withUnsafeMutableBytes { arc4random_buf($0.baseAddress!, $0.count) }
        var ids: [UUID] = []
        ids.reserveCapacity(count)
        for start in stride(from: 0, to: bytes.count, by: 16) {
            var raw = (
                UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0),
                UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0)
            )
            withUnsafeMutableBytes(of: &raw) { out in
                bytes.withUnsafeBytes {
                    out.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[start..<(start + 16)]))
                }
            }
            raw.6 = raw.6 & 0x0F | 0x40
            raw.8 = raw.8 & 0x3F | 0x80
            ids.append(UUID(uuid: raw))
        }
        bytes = []
        ids.sort(by: idPrecedes)
        return ids
    }

    /// The store's order of ids (their lower-case text, as the primary keys compare): the bytes in order.
    static func idPrecedes(_ a: UUID, _ b: UUID) -> Bool {
        withUnsafeBytes(of: a.uuid) { a in
            withUnsafeBytes(of: b.uuid) { b in memcmp(a.baseAddress!, b.baseAddress!, 16) < 0 }
        }
    }

    /// Stamps records never stamped before, each as `stampSave` stamps a new record — one stamp covering every field
    /// group (the empty clock text), the record queued for sync — with one reading of the clock for all of them: the
    /// stamps are those `nextStamp` gives as many times in a row within one millisecond, in the order of `idLists`
    /// (runs of ids as JSON strings joined by commas — their text needs no escaping — each with how many it holds).
    /// Two statements a run: one JSON array of every id (4 MB at 100,000 hosts, made twice over) and SQLite's two
    /// readings of it were the last rise of an import's memory, just before its commit (docs/PERFORMANCE.md, "Import").
    func stampNew(_ kind: RecordKind, idLists: [(ids: String, count: Int)]) throws {
        let count = idLists.reduce(0) { $0 + $1.count }
        guard count > 0 else { return }
        let first = try nextStamp()
        lastStamp = ClockStamp(wall: first.wall, counter: first.counter + count - 1, device: first.device)
        var before = 0
        for (ids, n) in idLists {
            let list = "[" + ids + "]"
            try db.run(
                """
                INSERT INTO record_clock(kind, id, wall, counter, device, deleted, clock)
                  SELECT ?, value, ?, ? + key, ?, 0, '' FROM json_each(?)
                """,
                [
                    .text(kind.rawValue), .int(Int(first.wall)), .int(first.counter + before), .text(first.device),
                    .text(list),
                ])
            try db.run(
                "INSERT OR IGNORE INTO sync_outbox(kind, id) SELECT ?, value FROM json_each(?)",
                [.text(kind.rawValue), .text(list)])
            before += n
        }
    }
}
