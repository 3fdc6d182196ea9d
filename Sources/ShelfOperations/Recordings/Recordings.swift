// Recordings: the folder of session recordings (0700, under the data location) and what is done with the files:
// naming, reading one (chunk by chunk, in memory only), listing, removing (with its release-log line), the
// rotation by age and total size, and sealing a recording whose writer died (a crash, kill -9) so its digest joins
// the release log's chain too (docs/SESSIONS.md).
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfSystem
import ShelfVault

public enum Recordings {
    public static func directoryPath(_ locations: DataLocations) -> String {
        locations.dataDirectory + "/recordings"
    }

    /// The folder, made 0700 (and checked: no link, this user's) when missing.
    public static func directory(_ locations: DataLocations) throws -> String {
        let path = directoryPath(locations)
        try PrivateFiles.ensureDirectory(path, within: locations.dataDirectory)
        return path
    }

    static func fileName(_ id: UUID) -> String { id.uuidString.lowercased() + RecordingFormat.fileSuffix }

    /// The first eight hex digits, as lists show an id.
    public static func shortID(_ id: UUID) -> String { String(id.uuidString.lowercased().prefix(8)) }

    /// How the release log names a recording.
    public static func logItem(_ id: UUID) -> String { "recording " + id.uuidString.lowercased() }

    static func finishedEntry(info: RecordingInfo, digest: String, size: Int, by: String? = nil) -> ReleaseEntry {
        ReleaseEntry(
            what: "recording", item: logItem(info.id), by: by ?? info.by, host: info.host,
            detail: "sha256 \(digest), \(size) bytes")
    }

    /// The recording files present: id and path, oldest first by name order of their times (their mtimes).
    public static func files(_ locations: DataLocations) -> [(id: UUID, path: String, size: Int, modified: Double)] {
        let folder = directoryPath(locations)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        return names.compactMap { name -> (UUID, String, Int, Double)? in
            guard name.hasSuffix(RecordingFormat.fileSuffix),
                let id = UUID(uuidString: String(name.dropLast(RecordingFormat.fileSuffix.count))),
                name == fileName(id)
            else { return nil }
            let path = folder + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
            return (id, path, Int(info.st_size), Double(info.st_mtim.tv_sec))
        }.sorted { $0.3 < $1.3 }.map { (id: $0.0, path: $0.1, size: $0.2, modified: $0.3) }
    }

    /// The recordings key for reading (its release logged for `by`).
    public static func key(vault: Vault, for by: String) throws -> RecordingsKey {
        switch vault.recordingsKey(create: false, for: by) {
        case .key(let key): return key
        case .absent:
            throw ShelfError(
                .notFound, "there are no recordings on this device (no session was recorded yet)",
                hint: "turn recording on for a host: sshelf edit HOST --record on")
        case .locked:
            throw ShelfError(.storage, "the vault is locked", hint: "unlock it first: sshelf vault unlock")
        case .unavailable(let reason): throw ShelfError(.storage, "the recordings key cannot be read: \(reason)")
        }
    }

    /// Reads the recording at `path`, handing each event to `body` (which answers false to stop). Answers how the
    /// file ended: finished, interrupted (its writer stopped before the end: a crash), or damaged (with where).
    @discardableResult
    public static func read(
        _ path: String, id: UUID, key: RecordingsKey, _ body: (RecordingEvent) throws -> Bool
    ) throws -> RecordingState {
        let reader = try RecordingReader(path: path, id: id, key: key)
        while let event = reader.next() {
            if !(try body(event)) { return .stopped }
        }
        return reader.ended ?? .finished
    }

    /// Reads the recording at `path` as `read` does, handing `body` each event where it lies in its chunk (kind,
    /// seconds, payload: valid during the call) rather than as a `RecordingEvent`: what `sessions search` and
    /// `sessions list` go through, since they look at every byte and keep none.
    @discardableResult
    public static func scan(
        _ path: String, id: UUID, key: RecordingsKey,
        _ body: (_ kind: UInt8, _ time: Double, _ payload: UnsafeRawBufferPointer) throws -> Bool
    ) throws -> RecordingState {
        let reader = try RecordingReader(path: path, id: id, key: key)
        while let plaintext = reader.nextChunk() {
            let parsed = try plaintext.withUnsafeBytes { try RecordingFormat.scan($0, body) }
            switch parsed {
            case .stopped: return .stopped
            case .damaged: return .damaged("chunk \(reader.chunksRead) does not parse")
            case .done: continue
            }
        }
        return reader.ended ?? .finished
    }

    /// Removes a recording and writes why into the release log (so `log verify` knows it was removed on purpose).
    public static func remove(_ id: UUID, path: String, by: String, vault: Vault) throws {
        let digest = fileDigest(path) ?? "unreadable"
        try vault.record(
            ReleaseEntry(what: "recording removed", item: logItem(id), by: by, detail: "sha256 \(digest)"))
        guard unlink(path) == 0 || errno == ENOENT else {
            throw ShelfError(.storage, "cannot remove \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// SHA-256 of a file, read in pieces; nil when it cannot be read.
    static func fileDigest(_ path: String) -> String? {
        guard let fd = try? RegularFile.open(path, followLinks: false) else { return nil }
        defer { close(fd) }
        let digest = RecordingDigest()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            buffer.withUnsafeBytes { digest.update(UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
        }
        return digest.hex()
    }

    /// Whether a writer still holds the file (a session being recorded now).
    static func isBeingWritten(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return flock(fd, LOCK_SH | LOCK_NB) != 0
    }
}

/// How a recording file ends.
public enum RecordingState: Sendable, Equatable {
    case finished
    /// Its writer stopped before the end (a crash, kill -9): it reads up to its last flush.
    case interrupted
    /// The reader stopped early (a search that had enough).
    case stopped
    case damaged(String)
}

/// Reads a file in pieces of any length through one buffer of 1 MiB (or one piece, when a piece is longer), read
/// into in place: a piece is handed on where it lies (`next`), copied only when asked for as an array (`take`).
struct ChunkReader {
    let fd: Int32
    private var buffer: [UInt8] = []
    /// Where the bytes not yet handed out start in `buffer`.
    private var at = 0
    private(set) var atEnd = false
    static let readSize = 1 << 20

    init(fd: Int32) { self.fd = fd }

    /// What the buffer holds now (read and not yet taken, plus what was taken and not yet dropped).
    var heldBytes: Int { buffer.capacity }

    /// Exactly `count` bytes, or nil at the end of the file (then `atEnd` says whether nothing was left).
    mutating func take(_ count: Int) -> [UInt8]? { next(count) { Array($0) } }

    /// `body` given the next `count` bytes where they lie (valid during the call), or nil at the end of the file.
    mutating func next<T>(_ count: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T? {
        guard fill(count) else { return nil }
        defer { at += count }
        return try buffer.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[at..<(at + count)])) }
    }

    /// Reads until `count` bytes are there: what is left moves to the front, the file is read in after it.
    private mutating func fill(_ count: Int) -> Bool {
        while buffer.count - at < count {
            if at > 0 {
                buffer.removeFirst(at)
                at = 0
            }
            let kept = buffer.count
            let room = max(Self.readSize, count) - kept
            buffer.append(contentsOf: repeatElement(0, count: room))
            let read = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + kept, room) }
            buffer.removeLast(room - max(read, 0))
            if read < 0 && errno == EINTR { continue }
            guard read > 0 else {
                atEnd = buffer.count == 0
                return false
            }
        }
        return true
    }
}
