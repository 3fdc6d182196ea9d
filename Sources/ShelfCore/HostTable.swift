// HostTable: every host of a store as a compact column store — one contiguous byte buffer (the file format of
// the catalog cache, so it can be mapped straight from disk) holding pre-folded search text, display text
// where it differs, fixed-width columns and small integer ids. No Swift String, array or class per host:
// 100,000 hosts are about 10 MB, and a search touches only the text columns. Full `Host` values are made on
// demand for the few hosts a screen shows. Rows are in the store's list order (name, case-insensitive, then id).
import FoundationEssentials
import Glibc

public struct HostTable: @unchecked Sendable {
    /// The bytes the columns live in (a read-only mapping of the cache file, or a heap buffer); immutable.
    let storage: HostTableStorage
    public let count: Int
    /// The store's catalog token the table was built from (see StoreCatalog): equal tokens, equal hosts.
    public let token: [UInt8]

    let textStart: UnsafePointer<UInt32>
    let text: UnsafePointer<UInt8>
    let textLength: Int
    let displayStart: UnsafePointer<UInt32>
    let display: UnsafePointer<UInt8>
    let displayLength: Int
    let ids: UnsafePointer<UInt8>
    /// The row of each id in id order, those ids (16 bytes each) in that order, and every `idBlock`-th of them: a
    /// lookup searches the fence (a few KiB), then one block of the sorted ids, and so touches two or three pages
    /// of the mapped file, not one for every step of a search over 100,000 rows.
    let idOrder: UnsafePointer<UInt32>
    let idSorted: UnsafePointer<UInt8>
    let idFence: UnsafePointer<UInt8>
    static let idBlock = 256
    let groupColumn: UnsafePointer<Int32>
    let identityColumn: UnsafePointer<Int32>
    let portColumn: UnsafePointer<UInt16>
    let authColumn: UnsafePointer<UInt8>
    let flagColumn: UnsafePointer<UInt8>
    let lastConnectedColumn: UnsafePointer<Double>
    let createdColumn: UnsafePointer<Double>
    let updatedColumn: UnsafePointer<Double>
    let jumpStart: UnsafePointer<UInt32>
    let jumpIDs: UnsafePointer<UInt8>
    let jumpCount: Int
    let rareStart: UnsafePointer<UInt32>
    let rare: UnsafePointer<UInt8>
    let rareCount: Int
    /// Rows of the hosts ever connected to, most recent first (ties in list order): few, so ranking and the
    /// "last connected" sort never read the whole date column.
    let recentColumn: UnsafePointer<UInt32>
    let recentCount: Int
    /// Distinct group and identity ids the hosts refer to; a host's column holds an index into these.
    public let groupIDs: [UUID]
    public let identityIDs: [UUID]

    /// Bit 0 of a host's flags: its folded text differs from its display text in more than ASCII case
    /// (accents, non-ASCII letters, replaced control characters), so highlight positions need mapping.
    static let flagNeedsMapping: UInt8 = 1
    /// Bit 1: a field of its search text is one byte long (see `HostMatcher.scoreOne`).
    static let flagOneByteField: UInt8 = 2

    /// An empty table (no store yet, or a test).
    public static let empty: HostTable = {
        var builder = HostTableBuilder(expectedCount: 0)
        return builder.finish(token: [])
    }()

    // MARK: text fields

    /// Which part of a host's text a field is; tags follow the user, one field each.
    public enum Field: Equatable, Sendable {
        case name, hostname, user, tag(Int), group
    }

    /// The folded search text of host `index`: fields separated by 0x1F (name, hostname, user, tags...).
    /// Offsets are checked here, at each use, so a damaged file shows empty text instead of reading astray.
    @inline(__always)
    func searchText(_ index: Int) -> UnsafeBufferPointer<UInt8> {
        let start = Int(textStart[index])
        let end = Int(textStart[index + 1])
        guard start <= end, end <= textLength else { return UnsafeBufferPointer(start: text, count: 0) }
        return UnsafeBufferPointer(start: text + start, count: end - start)
    }

    /// The display text of host `index`, in the same layout as the search text (which it is, when the two do
    /// not differ).
    public func displayText(_ index: Int) -> UnsafeBufferPointer<UInt8> {
        let start = Int(displayStart[index])
        let end = Int(displayStart[index + 1])
        if start < end, end <= displayLength { return UnsafeBufferPointer(start: display + start, count: end - start) }
        return searchText(index)
    }

    public func needsMapping(_ index: Int) -> Bool { flagColumn[index] & HostTable.flagNeedsMapping != 0 }

    @inline(__always)
    func hasOneByteField(_ index: Int) -> Bool { flagColumn[index] & HostTable.flagOneByteField != 0 }

    /// The display fields of host `index`: name, hostname, user, then the tags.
    public func fields(_ index: Int) -> [String] {
        HostTable.split(displayText(index)).map { String(decoding: $0, as: UTF8.self) }
    }

    public func name(_ index: Int) -> String { field(index, 0) }
    public func hostname(_ index: Int) -> String { field(index, 1) }
    public func user(_ index: Int) -> String { field(index, 2) }
    public func tags(_ index: Int) -> [String] { Array(fields(index).dropFirst(3)) }

    func field(_ index: Int, _ number: Int) -> String {
        let bytes = displayText(index)
        var fieldNumber = 0
        var start = 0
        for i in 0...bytes.count where i == bytes.count || bytes[i] == HostTable.separator {
            if fieldNumber == number {
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
            }
            fieldNumber += 1
            start = i + 1
        }
        return ""
    }

    public static let separator: UInt8 = 0x1F

    public static func split(_ bytes: UnsafeBufferPointer<UInt8>) -> [UnsafeBufferPointer<UInt8>] {
        var result: [UnsafeBufferPointer<UInt8>] = []
        var start = 0
        for i in 0...bytes.count where i == bytes.count || bytes[i] == separator {
            result.append(UnsafeBufferPointer(rebasing: bytes[start..<i]))
            start = i + 1
        }
        return result
    }

    // MARK: columns

    public func id(_ index: Int) -> UUID { HostTable.uuid(ids + index * 16) }
    public func port(_ index: Int) -> Int { Int(portColumn[index]) }

    /// Index into `groupIDs`, or -1 for a host in no group (or a value the list does not hold).
    @inline(__always)
    public func groupIndex(_ index: Int) -> Int {
        let g = Int(groupColumn[index])
        return g < groupIDs.count ? max(g, -1) : -1
    }
    public func groupID(_ index: Int) -> UUID? {
        let g = groupIndex(index)
        return g >= 0 ? groupIDs[g] : nil
    }

    /// Index into `identityIDs`, or -1 for none (or for a value the list does not hold).
    public func identityIndex(_ index: Int) -> Int {
        let i = Int(identityColumn[index])
        return i < identityIDs.count ? max(i, -1) : -1
    }

    public func identityID(_ index: Int) -> UUID? {
        let i = identityIndex(index)
        return i >= 0 ? identityIDs[i] : nil
    }

    /// Seconds since 1970, or nil when never connected.
    public func lastConnected(_ index: Int) -> Double? {
        let value = lastConnectedColumn[index]
        return value.isNaN ? nil : value
    }

    /// Rows of the hosts ever connected to, most recent first.
    public var recentRows: [Int32] {
        (0..<recentCount).compactMap { i in recentColumn[i] < UInt32(count) ? Int32(recentColumn[i]) : nil }
    }

    public func jumpHostIDs(_ index: Int) -> [UUID] {
        let start = Int(jumpStart[index])
        let end = Int(jumpStart[index + 1])
        guard start <= end, end <= jumpCount else { return [] }
        return (start..<end).map { HostTable.uuid(jumpIDs + $0 * 16) }
    }

    /// True when host `index` jumps through the host with id `target`.
    public func jumps(_ index: Int, through target: UUID) -> Bool {
        let start = Int(jumpStart[index])
        let end = Int(jumpStart[index + 1])
        guard start < end, end <= jumpCount else { return false }
        return withUnsafeBytes(of: target.uuid) { wanted in
            (start..<end).contains { memcmp(jumpIDs + $0 * 16, wanted.baseAddress!, 16) == 0 }
        }
    }

    /// The row of the host with this id: the last fence entry not above it names the block of the sorted ids to
    /// search (no dictionary per host, and a few pages touched).
    public func index(of id: UUID) -> Int? {
        withUnsafeBytes(of: id.uuid) { wanted -> Int? in
            let key = wanted.baseAddress!
            // The first fence entry above the key; its block is the one before.
            var low = 0
            var high = (count + HostTable.idBlock - 1) / HostTable.idBlock
            while low < high {
                let middle = (low + high) / 2
                if memcmp(idFence + middle * 16, key, 16) <= 0 { low = middle + 1 } else { high = middle }
            }
            guard low > 0 else { return nil }
            var first = (low - 1) * HostTable.idBlock
            var last = min(first + HostTable.idBlock, count)
            while first < last {
                let middle = (first + last) / 2
                let order = memcmp(idSorted + middle * 16, key, 16)
                if order == 0 {
                    let row = Int(idOrder[middle])
                    return row < count ? row : nil
                }
                if order < 0 { first = middle + 1 } else { last = middle }
            }
            return nil
        }
    }

    static func uuid(_ bytes: UnsafePointer<UInt8>) -> UUID {
        UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }

    // MARK: whole records

    /// The full record of host `index`, as the store holds it.
    public func host(at index: Int) -> Host {
        let display = fields(index)
        let rareFields = rareRecord(index)
        func text(_ number: Int) -> String { number < display.count ? display[number] : "" }
        var host = Host(
            id: id(index), name: rareFields[.name] ?? text(0), hostname: rareFields[.hostname] ?? text(1),
            port: port(index), user: rareFields[.user] ?? text(2), groupID: groupID(index),
            tags: rareFields[.tags].map(HostTable.splitTags) ?? Array(display.dropFirst(3)),
            authMethod: HostTable.authMethod(authColumn[index], raw: rareFields[.auth]), identityID: identityID(index),
            passwordRef: rareFields[.passwordRef].flatMap(ReferenceKey.init), jumpHostIDs: jumpHostIDs(index),
            unresolvedJump: rareFields[.unresolvedJump] ?? "", notes: rareFields[.notes] ?? "",
            createdAt: Date(timeIntervalSince1970: createdColumn[index]),
            updatedAt: Date(timeIntervalSince1970: updatedColumn[index]),
            lastConnectedAt: lastConnected(index).map { Date(timeIntervalSince1970: $0) })
        if let type = rareFields[.pinnedType], let key = rareFields[.pinnedKey] {
            host.pinnedHostKey = PinnedHostKey(type: type, key: key)
        }
        if let extra = rareFields[.extra], let data = extra.data(using: .utf8),
            let decoded = try? JSONDecoder().decode([String: JSONValue].self, from: data)
        {
            host.extra = decoded
        }
        if let options = rareFields[.options], let data = options.data(using: .utf8),
            let decoded = try? JSONDecoder().decode([String].self, from: data)
        {
            host.options = decoded
        }
        if let aliases = rareFields[.aliases] { host.aliases = HostTable.splitTags(aliases) }
        if let pq = rareFields[.pq] { host.pq = PostQuantumSetting(storeText: pq) }
        return host
    }

    static func splitTags(_ text: String) -> [String] {
        text.isEmpty ? [] : text.split(separator: "\u{1F}", omittingEmptySubsequences: true).map(String.init)
    }

    /// Fields most hosts do not have (a password reference, a pinned key, notes...), kept out of the hot
    /// columns; also the exact text of a field whose display copy had control characters replaced.
    enum Rare: UInt8, CaseIterable {
        case passwordRef = 1, unresolvedJump, pinnedType, pinnedKey, notes, extra, auth, name, hostname, user, tags,
            options,
            aliases, pq
    }

    func rareRecord(_ index: Int) -> [Rare: String] {
        let start = Int(rareStart[index])
        let end = Int(rareStart[index + 1])
        guard start < end, end <= rareCount else { return [:] }
        var result: [Rare: String] = [:]
        var at = start
        while at + 5 <= end {
            let tag = rare[at]
            let length = Int(
                UInt32(rare[at + 1]) | UInt32(rare[at + 2]) << 8 | UInt32(rare[at + 3]) << 16
                    | UInt32(rare[at + 4]) << 24)
            at += 5
            guard length <= end - at else { break }
            if let kind = Rare(rawValue: tag) {
                result[kind] = String(decoding: UnsafeBufferPointer(start: rare + at, count: length), as: UTF8.self)
            }
            at += length
        }
        return result
    }

    static let authCodes: [AuthMethod] = AuthMethod.knownCases
    static func authMethod(_ code: UInt8, raw: String?) -> AuthMethod {
        if let raw { return AuthMethod(rawValue: raw) }
        return Int(code) < authCodes.count ? authCodes[Int(code)] : .auto
    }
}

/// Owns the bytes of a table: a read-only mapping of a cache file, or a heap buffer.
final class HostTableStorage: @unchecked Sendable {
    let base: UnsafeRawPointer
    let length: Int
    private let release: (@Sendable (UnsafeRawPointer, Int) -> Void)?

    init(base: UnsafeRawPointer, length: Int, release: (@Sendable (UnsafeRawPointer, Int) -> Void)?) {
        self.base = base
        self.length = length
        self.release = release
    }

    deinit { release?(base, length) }
}
