// HostTableFormat: the byte layout of a HostTable (also the catalog cache file) — a header, then each column
// as one aligned section — and the checks that make a damaged or foreign file a load error, never a crash:
// every section lies inside the buffer, every offset column rises and ends inside its section, and every
// index column points inside its list.
import FoundationEssentials
import Glibc

public struct HostTableFormatError: Error, CustomStringConvertible, Sendable {
    public var description: String
}

enum HostTableFormat {
    static let magic: [UInt8] = Array("sshelfct".utf8)
    /// Bumped whenever the layout changes: an old file is then simply rebuilt.
    static let version: UInt32 = 7
    static let headerSize = 48 + Section.allCases.count * 16
    static let tokenSize = 16

    /// In file order: the columns a search reads first and together (a mapped page brings its neighbours
    /// in with it), then those only a shown or edited host needs.
    enum Section: Int, CaseIterable {
        case textStart, text, group, flags, recent, displayStart, display, lastConnected,
            ids, idFence, idSorted, idOrder, identity, port, auth, created, updated, jumpStart, jumpIDs, rareStart,
            rare,
            groupIDs, identityIDs
    }

    /// Where each section lives, in bytes from the start of the buffer.
    struct Layout {
        var offsets: [Int] = Array(repeating: 0, count: Section.allCases.count)
        var lengths: [Int] = Array(repeating: 0, count: Section.allCases.count)
        var total = HostTableFormat.headerSize

        /// Places the sections back to back after the header, each on an 8-byte boundary.
        init(lengths: [Int]) {
            self.lengths = lengths
            for section in Section.allCases {
                total = (total + 7) & ~7
                offsets[section.rawValue] = total
                total += lengths[section.rawValue]
            }
        }

        init() {}
    }

    /// Header: magic, version, host count, token, group count, identity count, jump count, rare bytes; then
    /// (offset, length) of every section as little-endian UInt64.
    static func header(count: Int, token: [UInt8], groups: Int, identities: Int, jumps: Int, layout: Layout) -> [UInt8]
    {
        var bytes = magic
        func put32(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { bytes += $0 } }
        func put64(_ value: Int) { withUnsafeBytes(of: UInt64(value).littleEndian) { bytes += $0 } }
        put32(Int(version))
        put32(count)
        bytes += (token + Array(repeating: 0, count: tokenSize)).prefix(tokenSize)
        put32(groups)
        put32(identities)
        put32(jumps)
        put32(0)
        for section in Section.allCases {
            put64(layout.offsets[section.rawValue])
            put64(layout.lengths[section.rawValue])
        }
        return bytes
    }

    struct Header {
        var count: Int
        var token: [UInt8]
        var groups: Int
        var identities: Int
        var jumps: Int
        var layout: Layout
    }

    static func readHeader(_ base: UnsafeRawPointer, length: Int) throws(HostTableFormatError) -> Header {
        guard length >= headerSize else { throw HostTableFormatError(description: "shorter than its header") }
        guard memcmp(base, magic, magic.count) == 0 else {
            throw HostTableFormatError(description: "not a catalog file")
        }
        func get32(_ at: Int) -> Int {
            Int(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: at, as: UInt32.self)))
        }
        func get64(_ at: Int) -> UInt64 {
            UInt64(littleEndian: base.loadUnaligned(fromByteOffset: at, as: UInt64.self))
        }
        guard get32(8) == Int(version) else { throw HostTableFormatError(description: "catalog format \(get32(8))") }
        let token = Array(UnsafeRawBufferPointer(start: base + 16, count: tokenSize))
        var layout = Layout()
        for section in Section.allCases {
            let offset = get64(48 + section.rawValue * 16)
            let size = get64(56 + section.rawValue * 16)
            guard offset % 8 == 0, offset >= UInt64(headerSize), offset <= UInt64(length),
                size <= UInt64(length) - offset
            else {
                throw HostTableFormatError(description: "section \(section) lies outside the file")
            }
            layout.offsets[section.rawValue] = Int(offset)
            layout.lengths[section.rawValue] = Int(size)
        }
        layout.total = length
        return Header(
            count: get32(12), token: token, groups: get32(32), identities: get32(36), jumps: get32(40),
            layout: layout)
    }
}

extension HostTable {
    /// Reads a table from bytes in the catalog format (a mapped file or a heap buffer), checking everything
    /// an index or offset could get wrong; a bad buffer throws and is never read out of bounds.
    init(storage: HostTableStorage) throws(HostTableFormatError) {
        let header = try HostTableFormat.readHeader(storage.base, length: storage.length)
        let n = header.count
        let layout = header.layout
        typealias S = HostTableFormat.Section
        func section(_ s: S, elementSize: Int, elements: Int) throws(HostTableFormatError) -> UnsafeRawPointer {
            guard layout.lengths[s.rawValue] == elementSize * elements else {
                throw HostTableFormatError(description: "section \(s) has the wrong size")
            }
            return storage.base + layout.offsets[s.rawValue]
        }
        guard n >= 0, n < Int(UInt32.max) else { throw HostTableFormatError(description: "bad host count") }
        self.storage = storage
        count = n
        token = header.token
        textLength = layout.lengths[S.text.rawValue]
        displayLength = layout.lengths[S.display.rawValue]
        textStart = try section(.textStart, elementSize: 4, elements: n + 1).assumingMemoryBound(to: UInt32.self)
        text = (storage.base + layout.offsets[S.text.rawValue]).assumingMemoryBound(to: UInt8.self)
        displayStart = try section(.displayStart, elementSize: 4, elements: n + 1).assumingMemoryBound(to: UInt32.self)
        display = (storage.base + layout.offsets[S.display.rawValue]).assumingMemoryBound(to: UInt8.self)
        ids = try section(.ids, elementSize: 16, elements: n).assumingMemoryBound(to: UInt8.self)
        idOrder = try section(.idOrder, elementSize: 4, elements: n).assumingMemoryBound(to: UInt32.self)
        idSorted = try section(.idSorted, elementSize: 16, elements: n).assumingMemoryBound(to: UInt8.self)
        idFence = try section(.idFence, elementSize: 16, elements: (n + HostTable.idBlock - 1) / HostTable.idBlock)
            .assumingMemoryBound(to: UInt8.self)
        groupColumn = try section(.group, elementSize: 4, elements: n).assumingMemoryBound(to: Int32.self)
        identityColumn = try section(.identity, elementSize: 4, elements: n).assumingMemoryBound(to: Int32.self)
        portColumn = try section(.port, elementSize: 2, elements: n).assumingMemoryBound(to: UInt16.self)
        authColumn = try section(.auth, elementSize: 1, elements: n).assumingMemoryBound(to: UInt8.self)
        flagColumn = try section(.flags, elementSize: 1, elements: n).assumingMemoryBound(to: UInt8.self)
        lastConnectedColumn = try section(.lastConnected, elementSize: 8, elements: n).assumingMemoryBound(
            to: Double.self)
        createdColumn = try section(.created, elementSize: 8, elements: n).assumingMemoryBound(to: Double.self)
        updatedColumn = try section(.updated, elementSize: 8, elements: n).assumingMemoryBound(to: Double.self)
        jumpStart = try section(.jumpStart, elementSize: 4, elements: n + 1).assumingMemoryBound(to: UInt32.self)
        jumpCount = header.jumps
        jumpIDs = try section(.jumpIDs, elementSize: 16, elements: header.jumps).assumingMemoryBound(to: UInt8.self)
        rareStart = try section(.rareStart, elementSize: 4, elements: n + 1).assumingMemoryBound(to: UInt32.self)
        rareCount = layout.lengths[S.rare.rawValue]
        rare = (storage.base + layout.offsets[S.rare.rawValue]).assumingMemoryBound(to: UInt8.self)
        recentCount = layout.lengths[S.recent.rawValue] / 4
        recentColumn = try section(.recent, elementSize: 4, elements: recentCount).assumingMemoryBound(to: UInt32.self)
        let groupBytes = try section(.groupIDs, elementSize: 16, elements: header.groups).assumingMemoryBound(
            to: UInt8.self)
        groupIDs = (0..<header.groups).map { HostTable.uuid(groupBytes + $0 * 16) }
        let identityBytes = try section(.identityIDs, elementSize: 16, elements: header.identities)
            .assumingMemoryBound(to: UInt8.self)
        identityIDs = (0..<header.identities).map { HostTable.uuid(identityBytes + $0 * 16) }
    }

    /// The whole table as bytes in the catalog format (tests compare and reload these).
    public var bytes: [UInt8] { Array(UnsafeRawBufferPointer(start: storage.base, count: storage.length)) }

    /// Reads a table from a copy of `bytes`.
    public init(bytes: [UInt8]) throws(HostTableFormatError) {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
        bytes.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
        try self.init(
            storage: HostTableStorage(
                base: buffer, length: bytes.count,
                release: { base, _ in
                    base.deallocate()
                }))
    }

    /// Maps a catalog file read-only; the mapping stays valid after the file is replaced (rename).
    public static func map(path: String) throws -> HostTable {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else {
            throw HostTableFormatError(description: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size >= HostTableFormat.headerSize
        else {
            throw HostTableFormatError(description: "\(path) is not a catalog file")
        }
        let length = Int(info.st_size)
        guard let mapped = mmap(nil, length, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED else {
            throw HostTableFormatError(description: "cannot map \(path): \(String(cString: strerror(errno)))")
        }
        let storage = HostTableStorage(
            base: UnsafeRawPointer(mapped), length: length,
            release: { base, length in
                munmap(UnsafeMutableRawPointer(mutating: base), length)
            })
        return try HostTable(storage: storage)
    }
}
