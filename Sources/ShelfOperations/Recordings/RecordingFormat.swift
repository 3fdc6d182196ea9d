// RecordingFormat: a session recording's bytes (docs/SESSIONS.md, "Format"). The file is the magic (its last digit
// the cipher's version: 1 secretstream, 2 AES-256-GCM), the recording's id, the cipher's header, then chunks (u32 BE
// length, sealed bytes); every chunk is bound to the magic and the id. Inside, the plaintext is a run of events —
// kind (u8), milliseconds since the start (u32 BE), length (u32 BE), payload — the first one the recording's
// description (JSON), the last one its end.
import FoundationEssentials
import ShelfCore
import ShelfVault

/// What a recording is of: written as its first event, shown by `sessions list`.
public struct RecordingInfo: Codable, Sendable, Equatable {
    public var id: UUID
    public var host: String
    public var hostID: UUID?
    /// When it started, seconds since 1970.
    public var started: Double
    public var columns: Int
    public var rows: Int
    /// Whether echoed input is kept too (`connect --record-input`).
    public var input: Bool
    /// connect, tui or openssh: which way the session ran.
    public var by: String

    public init(
        id: UUID, host: String, hostID: UUID?, started: Double, columns: Int, rows: Int, input: Bool, by: String
    ) {
        self.id = id
        self.host = host
        self.hostID = hostID
        self.started = started
        self.columns = columns
        self.rows = rows
        self.input = input
        self.by = by
    }
}

/// One thing that happened in a session, at `time` seconds after its start.
public enum RecordingEvent: Sendable, Equatable {
    case info(RecordingInfo)
    case output(time: Double, bytes: [UInt8])
    case input(time: Double, bytes: [UInt8])
    case resize(time: Double, columns: Int, rows: Int)
    /// The session ended (`how`: the exit status or how it was stopped).
    case end(time: Double, how: String)

    var kind: UInt8 {
        switch self {
        case .info: 0x4D  // M
        case .output: 0x6F  // o
        case .input: 0x69  // i
        case .resize: 0x72  // r
        case .end: 0x65  // e
        }
    }

    public var time: Double {
        switch self {
        case .info: 0
        case .output(let time, _), .input(let time, _), .resize(let time, _, _), .end(let time, _): time
        }
    }
}

public enum RecordingFormat {
    /// "SSHELFR" and the cipher's version as a digit.
    static let magicPrefix = Array("SSHELFR".utf8)
    static let magicLength = 8
    public static let fileSuffix = ".rec"
    /// A chunk larger than this is not one sshelf wrote (bounds what a damaged length makes the reader allocate).
    public static let maxChunk = 1 << 22

    public static func magic(_ version: RecordingCipherVersion) -> [UInt8] {
        magicPrefix + [UInt8(ascii: "0") + UInt8(version.rawValue)]
    }

    /// The version a file's magic names; nil when it is not a recording's (or a version this sshelf does not read).
    static func version(magic: [UInt8]) -> RecordingCipherVersion? {
        RecordingCipherVersion.allCases.first { Self.magic($0) == magic }
    }

    /// What every chunk is bound to.
    static func associatedData(_ id: UUID, _ version: RecordingCipherVersion) -> [UInt8] {
        magic(version) + idBytes(id)
    }

    static func idBytes(_ id: UUID) -> [UInt8] {
        withUnsafeBytes(of: id.uuid) { Array($0) }
    }

    static func appendEvent(_ event: RecordingEvent, to out: inout [UInt8]) {
        appendEvent(kind: event.kind, time: event.time, payload: payload(event), to: &out)
    }

    static func appendEvent(kind: UInt8, time: Double, payload: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        out.append(kind)
        appendU32(UInt32(clamping: Int((time * 1000).rounded())), to: &out)
        appendU32(UInt32(payload.count), to: &out)
        out.append(contentsOf: payload)
    }

    static func appendEvent(kind: UInt8, time: Double, payload: [UInt8], to out: inout [UInt8]) {
        payload.withUnsafeBytes { appendEvent(kind: kind, time: time, payload: $0, to: &out) }
    }

    static func appendU32(_ value: UInt32, to out: inout [UInt8]) {
        out.append(UInt8(value >> 24))
        out.append(UInt8(value >> 16 & 0xff))
        out.append(UInt8(value >> 8 & 0xff))
        out.append(UInt8(value & 0xff))
    }

    static func u32(_ bytes: ArraySlice<UInt8>, at index: Int) -> Int {
        let i = bytes.startIndex + index
        return Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
    }

    static func u32(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Int {
        Int(bytes[index]) << 24 | Int(bytes[index + 1]) << 16 | Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
    }

    /// How a walk through a chunk's events ended.
    enum Scan { case done, stopped, damaged }

    /// Each event of one chunk's plaintext handed to `body` where it lies (kind, seconds, payload), until `body`
    /// answers false; `damaged` when the events do not parse (which a chunk that opened cannot be, short of a bug).
    static func scan(
        _ plaintext: UnsafeRawBufferPointer, _ body: (UInt8, Double, UnsafeRawBufferPointer) throws -> Bool
    ) rethrows -> Scan {
        var at = 0
        while at < plaintext.count {
            guard plaintext.count - at >= 9 else { return .damaged }
            let length = u32(plaintext, at: at + 5)
            guard plaintext.count - at - 9 >= length else { return .damaged }
            let payload = UnsafeRawBufferPointer(rebasing: plaintext[(at + 9)..<(at + 9 + length)])
            if !(try body(plaintext[at], Double(u32(plaintext, at: at + 1)) / 1000, payload)) { return .stopped }
            at += 9 + length
        }
        return .done
    }

    /// The description an `M` event carries; nil when it does not decode.
    static func info(_ payload: UnsafeRawBufferPointer) -> RecordingInfo? {
        try? ShelfJSON.decoder().decode(RecordingInfo.self, from: Data(payload))
    }

    private static func payload(_ event: RecordingEvent) -> [UInt8] {
        switch event {
        case .info(let info): (try? ShelfJSON.encoder().encode(info)).map { Array($0) } ?? []
        case .output(_, let bytes), .input(_, let bytes): bytes
        case .resize(_, let columns, let rows): Array("\(columns)x\(rows)".utf8)
        case .end(_, let how): Array(how.utf8)
        }
    }

    /// The events in one chunk's plaintext; nil when it does not parse (which a chunk that opened cannot be, short
    /// of a bug: the seal covers it).
    static func events(in plaintext: [UInt8]) -> [RecordingEvent]? {
        var out: [RecordingEvent] = []
        let parsed = plaintext.withUnsafeBytes { bytes in
            scan(bytes) { kind, time, payload in
                switch kind {
                case 0x4D:
                    guard let info = info(payload) else { return false }
                    out.append(.info(info))
                case 0x6F: out.append(.output(time: time, bytes: Array(payload)))
                case 0x69: out.append(.input(time: time, bytes: Array(payload)))
                case 0x72:
                    let parts = String(decoding: payload, as: UTF8.self).split(separator: "x").compactMap { Int($0) }
                    guard parts.count == 2 else { return false }
                    out.append(.resize(time: time, columns: parts[0], rows: parts[1]))
                case 0x65: out.append(.end(time: time, how: String(decoding: payload, as: UTF8.self)))
                default: break  // a kind a newer sshelf writes: skipped
                }
                return true
            }
        }
        return parsed == .done ? out : nil
    }
}
