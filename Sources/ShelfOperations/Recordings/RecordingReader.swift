// RecordingReader: a recording's events pulled one at a time (what `play` replays from and `Recordings.read` hands
// on), or its chunks' plaintexts (what `Recordings.scan` walks), decrypted one chunk at a time where the file reader
// holds it: at most that reader's buffer (ChunkReader: 1 MiB, or one chunk when a chunk is longer) and one chunk's
// events are held, so a recording of any length replays in bounded memory.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfSystem
import ShelfVault

public final class RecordingReader {
    private let fd: Int32
    private var reader: ChunkReader
    private var opener: RecordingChunkOpener?
    private var pending: [RecordingEvent] = []
    private var pendingAt = 0
    private var chunk = 0
    /// How the file ended, once `next` answered nil (nil before).
    public private(set) var ended: RecordingState?

    /// Opens the file (no link followed); a header that is not this recording's ends it at once as damaged.
    public init(path: String, id: UUID, key: RecordingsKey) throws {
        do { fd = try RegularFile.open(path, followLinks: false) } catch {
            throw ShelfError(.notFound, "cannot read the recording: \(error)")
        }
        reader = ChunkReader(fd: fd)
        // Either format: the magic's digit says which cipher (docs/SESSIONS.md, "Format").
        let magic = reader.take(RecordingFormat.magicLength)
        if let magic, magic.starts(with: RecordingFormat.magicPrefix), RecordingFormat.version(magic: magic) == nil {
            // The file's byte shown only when printable: the file may be anyone's.
            let mark = magic[RecordingFormat.magicLength - 1]
            let shown = (0x21...0x7E).contains(mark) ? String(UnicodeScalar(mark)) : "\\x" + String(mark, radix: 16)
            ended = .damaged("its format (SSHELFR\(shown)) is not one this sshelf reads: a newer sshelf wrote it")
            return
        }
        guard let magic, let version = RecordingFormat.version(magic: magic),
            let head = reader.take(16 + version.headerLength),
            Array(head.prefix(16)) == RecordingFormat.idBytes(id)
        else {
            ended = .damaged("its header is not a recording's of this id")
            return
        }
        opener = version.opener(
            key: key, header: Array(head.dropFirst(16)), id: RecordingFormat.idBytes(id),
            associatedData: RecordingFormat.associatedData(id, version))
        if opener == nil { ended = .damaged("its header does not open") }
    }

    deinit { close(fd) }

    /// Bytes held now: the file reader's buffer and the events of the chunk being handed out.
    public var heldBytes: Int {
        reader.heldBytes
            + pending[pendingAt...].reduce(0) { total, event in
                if case .output(_, let bytes) = event { return total + bytes.count }
                if case .input(_, let bytes) = event { return total + bytes.count }
                return total + 16
            }
    }

    /// The next event, or nil at the end of what can be read (`ended` says how).
    public func next() -> RecordingEvent? {
        while pendingAt >= pending.count {
            pending = []
            pendingAt = 0
            guard let plaintext = nextChunk() else { return nil }
            guard let events = RecordingFormat.events(in: plaintext) else {
                ended = .damaged("chunk \(chunk) does not open (changed, moved or from another recording)")
                return nil
            }
            pending = events
        }
        defer { pendingAt += 1 }
        return pending[pendingAt]
    }

    /// Chunks opened so far.
    var chunksRead: Int { chunk }

    /// The next chunk's plaintext (its events, as RecordingFormat lays them out), or nil at the end of what can be
    /// read (`ended` says how). The sealed chunk is opened where the file reader holds it.
    func nextChunk() -> [UInt8]? {
        guard ended == nil, let opener else { return nil }
        guard let length = reader.next(4, { RecordingFormat.u32($0, at: 0) }) else {
            ended = reader.atEnd ? (opener.finished ? .finished : .interrupted) : .damaged("chunk \(chunk + 1) cut")
            return nil
        }
        if opener.finished {
            ended = .damaged("bytes after its end")
            return nil
        }
        guard length <= RecordingFormat.maxChunk + opener.overhead else {
            ended = .damaged("chunk \(chunk + 1) has an impossible length")
            return nil
        }
        guard let opened = reader.next(length, { opener.open($0) }) else {
            // Cut in the middle of a chunk: what a crash during a write leaves.
            ended = .interrupted
            return nil
        }
        chunk += 1
        guard let plaintext = opened else {
            ended = .damaged("chunk \(chunk) does not open (changed, moved or from another recording)")
            return nil
        }
        return plaintext
    }
}
