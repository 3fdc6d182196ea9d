// HostTableBuilder: fills a HostTable one host at a time, from raw column bytes (the store hands SQLite's
// buffers straight in, so loading makes no String per host) or from a `Host`. Folds the search text once,
// replaces control characters in what is displayed (the exact text is kept for saving), and writes the
// result in the catalog format — to a file (the cache) or a heap buffer of exactly the right size.
import FoundationEssentials
import Glibc

/// One host's columns as raw UTF-8 (valid only during `append`), in the store's forms: tags joined by
/// U+001F, jump hosts as space-separated UUID text, dates in seconds since 1970.
public struct HostTableRow {
    public var id: UUID
    public var name: UnsafeBufferPointer<UInt8>
    public var hostname: UnsafeBufferPointer<UInt8>
    public var user: UnsafeBufferPointer<UInt8>
    public var tags: UnsafeBufferPointer<UInt8>
    public var port: Int
    public var groupID: UUID?
    public var identityID: UUID?
    public var auth: UnsafeBufferPointer<UInt8>
    public var passwordRef: UnsafeBufferPointer<UInt8>?
    public var jumps: UnsafeBufferPointer<UInt8>
    public var unresolvedJump: UnsafeBufferPointer<UInt8>
    public var pinnedType: UnsafeBufferPointer<UInt8>?
    public var pinnedKey: UnsafeBufferPointer<UInt8>?
    public var notes: UnsafeBufferPointer<UInt8>
    public var created: Double
    public var updated: Double
    public var lastConnected: Double?
    public var extra: UnsafeBufferPointer<UInt8>
    /// The option lines as the store keeps them (a JSON array of strings; empty for none).
    public var options: UnsafeBufferPointer<UInt8>
    /// The aliases joined by U+001F, as the store keeps them (empty for none).
    public var aliases: UnsafeBufferPointer<UInt8>
    /// The `pq` setting as the store keeps it (empty for off, most hosts).
    public var pq: UnsafeBufferPointer<UInt8>

    public init(
        id: UUID, name: UnsafeBufferPointer<UInt8>, hostname: UnsafeBufferPointer<UInt8>,
        user: UnsafeBufferPointer<UInt8>, tags: UnsafeBufferPointer<UInt8>, port: Int, groupID: UUID?,
        identityID: UUID?, auth: UnsafeBufferPointer<UInt8>, passwordRef: UnsafeBufferPointer<UInt8>?,
        jumps: UnsafeBufferPointer<UInt8>, unresolvedJump: UnsafeBufferPointer<UInt8>,
        pinnedType: UnsafeBufferPointer<UInt8>?, pinnedKey: UnsafeBufferPointer<UInt8>?,
        notes: UnsafeBufferPointer<UInt8>, created: Double, updated: Double, lastConnected: Double?,
        extra: UnsafeBufferPointer<UInt8>,
        options: UnsafeBufferPointer<UInt8> = UnsafeBufferPointer(start: nil, count: 0),
        aliases: UnsafeBufferPointer<UInt8> = UnsafeBufferPointer(start: nil, count: 0),
        pq: UnsafeBufferPointer<UInt8> = UnsafeBufferPointer(start: nil, count: 0)
    ) {
        self.id = id
        self.name = name
        self.hostname = hostname
        self.user = user
        self.tags = tags
        self.port = port
        self.groupID = groupID
        self.identityID = identityID
        self.auth = auth
        self.passwordRef = passwordRef
        self.jumps = jumps
        self.unresolvedJump = unresolvedJump
        self.pinnedType = pinnedType
        self.pinnedKey = pinnedKey
        self.notes = notes
        self.created = created
        self.updated = updated
        self.lastConnected = lastConnected
        self.extra = extra
        self.options = options
        self.aliases = aliases
        self.pq = pq
    }
}

/// Bytes in 1 MiB blocks: growing never copies what is already there, so building a large table never holds
/// two copies of its text at once.
struct ChunkedBytes {
    static let blockSize = 1 << 20
    private(set) var blocks: [[UInt8]] = []
    private(set) var count = 0

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        var rest = bytes
        while !rest.isEmpty {
            if blocks.isEmpty || blocks[blocks.count - 1].count == ChunkedBytes.blockSize {
                var block: [UInt8] = []
                block.reserveCapacity(ChunkedBytes.blockSize)
                blocks.append(block)
            }
            let room = ChunkedBytes.blockSize - blocks[blocks.count - 1].count
            let part = UnsafeBufferPointer(rebasing: rest.prefix(room))
            blocks[blocks.count - 1].append(contentsOf: part)
            rest = UnsafeBufferPointer(rebasing: rest.dropFirst(part.count))
            count += part.count
        }
    }

    mutating func append(_ bytes: [UInt8]) { bytes.withUnsafeBufferPointer { append($0) } }
}

public struct HostTableBuilder {
    private var count = 0
    private var textStart: [UInt32] = [0]
    private var text = ChunkedBytes()
    private var displayStart: [UInt32] = [0]
    private var display = ChunkedBytes()
    private var ids: [UInt8] = []
    private var groupColumn: [Int32] = []
    private var identityColumn: [Int32] = []
    private var portColumn: [UInt16] = []
    private var authColumn: [UInt8] = []
    private var flagColumn: [UInt8] = []
    private var lastConnectedColumn: [Double] = []
    private var createdColumn: [Double] = []
    private var updatedColumn: [Double] = []
    private var jumpStart: [UInt32] = [0]
    private var jumpIDs: [UInt8] = []
    private var rareStart: [UInt32] = [0]
    private var rare = ChunkedBytes()
    private var groupIDs: [UUID] = []
    private var groupIndex: [UUID: Int32] = [:]
    private var identityIDs: [UUID] = []
    private var identityIndex: [UUID: Int32] = [:]
    // Scratch buffers reused for every host.
    private var foldedScratch: [UInt8] = []
    private var displayScratch: [UInt8] = []
    private var rareScratch: [UInt8] = []

    /// `expectedCount` sizes the fixed-width columns once (the store passes its exact host count).
    public init(expectedCount: Int) {
        let n = max(0, expectedCount)
        textStart.reserveCapacity(n + 1)
        displayStart.reserveCapacity(n + 1)
        ids.reserveCapacity(n * 16)
        groupColumn.reserveCapacity(n)
        identityColumn.reserveCapacity(n)
        portColumn.reserveCapacity(n)
        authColumn.reserveCapacity(n)
        flagColumn.reserveCapacity(n)
        lastConnectedColumn.reserveCapacity(n)
        createdColumn.reserveCapacity(n)
        updatedColumn.reserveCapacity(n)
        jumpStart.reserveCapacity(n + 1)
        rareStart.reserveCapacity(n + 1)
        foldedScratch.reserveCapacity(256)
        displayScratch.reserveCapacity(256)
    }

    public var hostCount: Int { count }

    // MARK: appending

    /// True when a field of the folded text is a single byte (a one-letter name, user or tag): only such a field
    /// can give a one-character term the "whole field" bonus, so the matcher may stop early on every other host.
    static func hasOneByteField(_ text: [UInt8]) -> Bool {
        var start = 0
        for i in 0...text.count where i == text.count || text[i] == HostTable.separator {
            if i - start == 1 { return true }
            start = i + 1
        }
        return false
    }

    public mutating func append(_ row: HostTableRow) {
        foldedScratch.removeAll(keepingCapacity: true)
        displayScratch.removeAll(keepingCapacity: true)
        rareScratch.removeAll(keepingCapacity: true)
        var needsMapping = false
        var sanitized = false
        for (number, field) in [row.name, row.hostname, row.user].enumerated() {
            if number > 0 { appendSeparator() }
            let result = appendField(field)
            needsMapping = needsMapping || result.needsMapping
            if result.sanitized {
                sanitized = true
                addRare([.name, .hostname, .user][number], field)
            }
        }
        var tagSanitized = false
        var tagStart = 0
        for i in 0...row.tags.count where i == row.tags.count || row.tags[i] == HostTable.separator {
            if i > tagStart {
                appendSeparator()
                let result = appendField(UnsafeBufferPointer(rebasing: row.tags[tagStart..<i]))
                needsMapping = needsMapping || result.needsMapping
                tagSanitized = tagSanitized || result.sanitized
            }
            tagStart = i + 1
        }
        if tagSanitized {
            sanitized = true
            addRare(.tags, row.tags)
        }
        if !row.aliases.isEmpty {
            // The aliases are searched (after the tags) but not displayed as fields: the display text keeps its
            // layout (name, hostname, user, tags) and is stored apart, since the two now differ.
            addRare(.aliases, row.aliases)
            appendSearchOnly(row.aliases)
        }
        foldedScratch.withUnsafeBufferPointer { text.append($0) }
        textStart.append(UInt32(text.count))
        if displayScratch != foldedScratch { displayScratch.withUnsafeBufferPointer { display.append($0) } }
        displayStart.append(UInt32(display.count))

        withUnsafeBytes(of: row.id.uuid) { ids.append(contentsOf: $0) }
        groupColumn.append(row.groupID.map { index(of: $0, in: &groupIDs, &groupIndex) } ?? -1)
        identityColumn.append(row.identityID.map { index(of: $0, in: &identityIDs, &identityIndex) } ?? -1)
        portColumn.append(UInt16(clamping: row.port))
        let authCode = HostTableBuilder.authCode(row.auth)
        authColumn.append(authCode ?? 0)
        if authCode == nil { addRare(.auth, row.auth) }
        flagColumn.append(
            (needsMapping || sanitized ? HostTable.flagNeedsMapping : 0)
                | (HostTableBuilder.hasOneByteField(foldedScratch) ? HostTable.flagOneByteField : 0))
        lastConnectedColumn.append(row.lastConnected ?? .nan)
        createdColumn.append(row.created)
        updatedColumn.append(row.updated)

        var at = 0
        let jumps = row.jumps
        while at + 36 <= jumps.count {
            if let id = HostTableBuilder.parseUUID(UnsafeBufferPointer(rebasing: jumps[at..<(at + 36)])) {
                withUnsafeBytes(of: id.uuid) { jumpIDs.append(contentsOf: $0) }
            }
            at += 37
        }
        jumpStart.append(UInt32(jumpIDs.count / 16))

        if let ref = row.passwordRef { addRare(.passwordRef, ref) }
        if !row.unresolvedJump.isEmpty { addRare(.unresolvedJump, row.unresolvedJump) }
        if let type = row.pinnedType, let key = row.pinnedKey {
            addRare(.pinnedType, type)
            addRare(.pinnedKey, key)
        }
        if !row.notes.isEmpty { addRare(.notes, row.notes) }
        if !row.extra.isEmpty { addRare(.extra, row.extra) }
        if !row.options.isEmpty { addRare(.options, row.options) }
        if !row.pq.isEmpty { addRare(.pq, row.pq) }
        rareScratch.withUnsafeBufferPointer { rare.append($0) }
        rareStart.append(UInt32(rare.count))
        count += 1
    }

    /// Appends a host record (tests, fixtures and small tables built in memory).
    public mutating func append(_ host: Host) {
        var name = host.name, hostname = host.hostname, user = host.user
        var tags = host.tags.joined(separator: "\u{1F}")
        var auth = host.authMethod.rawValue
        var ref = host.passwordRef?.rawValue
        var jumps = host.jumpHostIDs.map { $0.uuidString.lowercased() }.joined(separator: " ")
        var unresolved = host.unresolvedJump
        var pinnedType = host.pinnedHostKey?.type, pinnedKey = host.pinnedHostKey?.key
        var notes = host.notes
        var extra = ""
        if !host.extra.isEmpty, let data = try? JSONEncoder().encode(host.extra) {
            extra = String(decoding: data, as: UTF8.self)
        }
        var aliases = host.aliases.joined(separator: "\u{1F}")
        var pqText = host.pq.storeText
        var options = ""
        if !host.options.isEmpty, let data = try? JSONEncoder().encode(host.options) {
            options = String(decoding: data, as: UTF8.self)
        }
        pqText.withUTF8 { pq in
            name.withUTF8 { name in
                hostname.withUTF8 { hostname in
                    user.withUTF8 { user in
                        tags.withUTF8 { tags in
                            auth.withUTF8 { auth in
                                jumps.withUTF8 { jumps in
                                    unresolved.withUTF8 { unresolved in
                                        notes.withUTF8 { notes in
                                            extra.withUTF8 { extra in
                                                options.withUTF8 { options in
                                                    aliases.withUTF8 { aliases in
                                                        HostTableBuilder.withOptionalUTF8(&ref) { ref in
                                                            HostTableBuilder.withOptionalUTF8(&pinnedType) {
                                                                pinnedType in
                                                                HostTableBuilder.withOptionalUTF8(&pinnedKey) {
                                                                    pinnedKey in
                                                                    append(
                                                                        HostTableRow(
                                                                            id: host.id, name: name, hostname: hostname,
                                                                            user: user, tags: tags, port: host.port,
                                                                            groupID: host.groupID,
                                                                            identityID: host.identityID, auth: auth,
                                                                            passwordRef: ref,
                                                                            jumps: jumps, unresolvedJump: unresolved,
                                                                            pinnedType: pinnedType,
                                                                            pinnedKey: pinnedKey, notes: notes,
                                                                            created: host.createdAt
                                                                                .timeIntervalSince1970,
                                                                            updated: host.updatedAt
                                                                                .timeIntervalSince1970,
                                                                            lastConnected: host.lastConnectedAt?
                                                                                .timeIntervalSince1970, extra: extra,
                                                                            options: options, aliases: aliases, pq: pq))
                                                                }
                                                            }
                                                        }
                                                    }
                                                }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    static func withOptionalUTF8<R>(_ text: inout String?, _ body: (UnsafeBufferPointer<UInt8>?) -> R) -> R {
        guard text != nil else { return body(nil) }
        return text!.withUTF8 { body($0) }
    }

    /// Appends U+001F-separated fields to the search text only, folded.
    private mutating func appendSearchOnly(_ fields: UnsafeBufferPointer<UInt8>) {
        let folded = HostSearch.fold(String(decoding: fields, as: UTF8.self))
        for field in folded.utf8.split(separator: HostTable.separator, omittingEmptySubsequences: true) {
            foldedScratch.append(HostTable.separator)
            for byte in field { foldedScratch.append(byte < 0x20 || byte == 0x7F ? 0x3F : byte) }
        }
    }

    private mutating func appendSeparator() {
        foldedScratch.append(HostTable.separator)
        displayScratch.append(HostTable.separator)
    }

    /// Appends one field's folded and display bytes; reports whether positions need mapping between the two
    /// and whether a control character was replaced.
    private mutating func appendField(_ bytes: UnsafeBufferPointer<UInt8>) -> (needsMapping: Bool, sanitized: Bool) {
        var ascii = true
        for byte in bytes where byte >= 0x80 {
            ascii = false
            break
        }
        if ascii {
            var sanitized = false
            for var byte in bytes {
                if byte < 0x20 || byte == 0x7F {
                    byte = 0x3F
                    sanitized = true
                }
                displayScratch.append(byte)
                foldedScratch.append(byte &- 65 < 26 ? byte + 32 : byte)
            }
            return (false, sanitized)
        }
        var sanitized = false
        for character in String(decoding: bytes, as: UTF8.self) {
            var shown = character
            if character.unicodeScalars.contains(where: Validation.isForbidden) {
                shown = "?"
                sanitized = true
            }
            displayScratch.append(contentsOf: String(shown).utf8)
            foldedScratch.append(contentsOf: HostSearch.fold(shown).utf8)
        }
        return (true, sanitized)
    }

    private mutating func addRare(_ kind: HostTable.Rare, _ bytes: UnsafeBufferPointer<UInt8>) {
        rareScratch.append(kind.rawValue)
        withUnsafeBytes(of: UInt32(bytes.count).littleEndian) { rareScratch.append(contentsOf: $0) }
        rareScratch.append(contentsOf: bytes)
    }

    private func index(of id: UUID, in list: inout [UUID], _ index: inout [UUID: Int32]) -> Int32 {
        if let known = index[id] { return known }
        let next = Int32(list.count)
        list.append(id)
        index[id] = next
        return next
    }

    static func authCode(_ raw: UnsafeBufferPointer<UInt8>) -> UInt8? {
        for (code, method) in HostTable.authCodes.enumerated() where method.rawValue.utf8.elementsEqual(raw) {
            return UInt8(code)
        }
        return nil
    }

    /// Parses a UUID's 36-character text (either case) without Foundation's slower parser.
    public static func parseUUID(_ text: UnsafeBufferPointer<UInt8>) -> UUID? {
        guard text.count == 36 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 16)
        var out = 0
        var i = 0
        while i < 36 {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                guard text[i] == 0x2D else { return nil }
                i += 1
                continue
            }
            guard let high = hex(text[i]), let low = hex(text[i + 1]) else { return nil }
            bytes[out] = high << 4 | low
            out += 1
            i += 2
        }
        return HostTable.uuid(bytes)
    }

    @inline(__always)
    static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x61...0x66: byte - 0x61 + 10
        case 0x41...0x46: byte - 0x41 + 10
        default: nil
        }
    }

    // MARK: finishing

    /// Rows of the hosts ever connected to, most recent first, ties in row order.
    private func recentRows() -> [UInt32] {
        (0..<count).filter { !lastConnectedColumn[$0].isNaN }.sorted {
            let a = lastConnectedColumn[$0], b = lastConnectedColumn[$1]
            return a != b ? a > b : $0 < $1
        }.map { UInt32($0) }
    }

    /// Rows ordered by id bytes, for `HostTable.index(of:)`.
    private func idOrder() -> [UInt32] {
        var keys: [(UInt64, UInt64, UInt32)] = []
        keys.reserveCapacity(count)
        ids.withUnsafeBytes { raw in
            for i in 0..<count {
                let high = UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: i * 16, as: UInt64.self))
                let low = UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: i * 16 + 8, as: UInt64.self))
                keys.append((high, low, UInt32(i)))
            }
        }
        keys.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        return keys.map(\.2)
    }

    /// Writes the table in the catalog format through `sink`, section by section.
    private func serialize(token: [UInt8], order: [UInt32], sink: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        let recent = recentRows()
        let groupBytes = groupIDs.flatMap { id in withUnsafeBytes(of: id.uuid) { Array($0) } }
        let identityBytes = identityIDs.flatMap { id in withUnsafeBytes(of: id.uuid) { Array($0) } }
        typealias S = HostTableFormat.Section
        var lengths = Array(repeating: 0, count: S.allCases.count)
        lengths[S.textStart.rawValue] = textStart.count * 4
        lengths[S.text.rawValue] = text.count
        lengths[S.displayStart.rawValue] = displayStart.count * 4
        lengths[S.display.rawValue] = display.count
        lengths[S.ids.rawValue] = ids.count
        lengths[S.idOrder.rawValue] = order.count * 4
        var sorted: [UInt8] = []
        sorted.reserveCapacity(ids.count)
        for row in order { sorted += ids[Int(row) * 16..<Int(row) * 16 + 16] }
        let fence = stride(from: 0, to: order.count, by: HostTable.idBlock).flatMap { sorted[$0 * 16..<$0 * 16 + 16] }
        lengths[S.idSorted.rawValue] = sorted.count
        lengths[S.idFence.rawValue] = fence.count
        lengths[S.group.rawValue] = groupColumn.count * 4
        lengths[S.identity.rawValue] = identityColumn.count * 4
        lengths[S.port.rawValue] = portColumn.count * 2
        lengths[S.auth.rawValue] = authColumn.count
        lengths[S.flags.rawValue] = flagColumn.count
        lengths[S.lastConnected.rawValue] = lastConnectedColumn.count * 8
        lengths[S.recent.rawValue] = recent.count * 4
        lengths[S.created.rawValue] = createdColumn.count * 8
        lengths[S.updated.rawValue] = updatedColumn.count * 8
        lengths[S.jumpStart.rawValue] = jumpStart.count * 4
        lengths[S.jumpIDs.rawValue] = jumpIDs.count
        lengths[S.rareStart.rawValue] = rareStart.count * 4
        lengths[S.rare.rawValue] = rare.count
        lengths[S.groupIDs.rawValue] = groupBytes.count
        lengths[S.identityIDs.rawValue] = identityBytes.count
        let layout = HostTableFormat.Layout(lengths: lengths)
        var written = 0
        func put(_ bytes: UnsafeRawBufferPointer) throws {
            if !bytes.isEmpty { try sink(bytes) }
            written += bytes.count
        }
        func pad(to offset: Int) throws {
            let zeros = [UInt8](repeating: 0, count: offset - written)
            try zeros.withUnsafeBytes { try put($0) }
        }
        func array<T>(_ section: S, _ values: [T]) throws {
            try pad(to: layout.offsets[section.rawValue])
            try values.withUnsafeBytes { try put($0) }
        }
        func chunked(_ section: S, _ values: ChunkedBytes) throws {
            try pad(to: layout.offsets[section.rawValue])
            for block in values.blocks { try block.withUnsafeBytes { try put($0) } }
        }
        let header = HostTableFormat.header(
            count: count, token: token, groups: groupIDs.count,
            identities: identityIDs.count, jumps: jumpIDs.count / 16, layout: layout)
        try header.withUnsafeBytes { try put($0) }
        // Sections go out in file order (the layout's), whatever order they are listed in here.
        for section in S.allCases {
            switch section {
            case .textStart: try array(section, textStart)
            case .text: try chunked(section, text)
            case .displayStart: try array(section, displayStart)
            case .display: try chunked(section, display)
            case .group: try array(section, groupColumn)
            case .flags: try array(section, flagColumn)
            case .lastConnected: try array(section, lastConnectedColumn)
            case .recent: try array(section, recent)
            case .ids: try array(section, ids)
            case .idOrder: try array(section, order)
            case .idSorted: try array(section, sorted)
            case .idFence: try array(section, fence)
            case .identity: try array(section, identityColumn)
            case .port: try array(section, portColumn)
            case .auth: try array(section, authColumn)
            case .created: try array(section, createdColumn)
            case .updated: try array(section, updatedColumn)
            case .jumpStart: try array(section, jumpStart)
            case .jumpIDs: try array(section, jumpIDs)
            case .rareStart: try array(section, rareStart)
            case .rare: try chunked(section, rare)
            case .groupIDs: try array(section, groupBytes)
            case .identityIDs: try array(section, identityBytes)
            }
        }
        try pad(to: layout.total)
    }

    /// The finished table in one heap buffer of exactly its size; the builder is emptied as it goes.
    public mutating func finish(token: [UInt8]) -> HostTable {
        let order = idOrder()
        var total = 0
        serialize(token: token, order: order) { total += $0.count }
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: max(total, 1), alignment: 16)
        var at = 0
        serialize(token: token, order: order) { bytes in
            (buffer + at).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
            at += bytes.count
        }
        self = HostTableBuilder(expectedCount: 0)
        let storage = HostTableStorage(base: buffer, length: total, release: { base, _ in base.deallocate() })
        do {
            return try HostTable(storage: storage)
        } catch {
            // The builder wrote this buffer itself; a failed check here is a bug, so fail loudly in tests.
            preconditionFailure("HostTableBuilder wrote an invalid table: \(error)")
        }
    }

    /// Writes the table in the catalog format to an open file (the catalog cache).
    /// Bytes per write of the catalog file. The page cache keeps a file in pieces ("folios") as large as the writes
    /// that made them, and a process mapping the file maps a whole piece when it touches one byte of it: written at
    /// once, a 14 MB catalog became pieces of up to 2 MB, and drawing 40 rows (a few bytes of each of ten columns)
    /// mapped most of the file. In 64 KiB writes a touch maps 64 KiB, the kernel's fault-around anyway.
    static let writeChunk = 64 * 1024

    public func write(token: [UInt8], to fd: Int32) throws {
        try serialize(token: token, order: idOrder()) { bytes in
            var rest = bytes
            while !rest.isEmpty {
                let n = Glibc.write(fd, rest.baseAddress!, min(rest.count, HostTableBuilder.writeChunk))
                if n < 0 {
                    if errno == EINTR { continue }
                    throw HostTableFormatError(
                        description: "cannot write the catalog: \(String(cString: strerror(errno)))")
                }
                rest = UnsafeRawBufferPointer(rebasing: rest[n...])
            }
        }
    }
}
