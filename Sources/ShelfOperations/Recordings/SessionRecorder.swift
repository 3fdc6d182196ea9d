// SessionRecorder: records one interactive session as it runs (docs/SESSIONS.md) — the ShellObserver the shell's
// pump calls with output, typed bytes and size changes. Events are collected in memory and sealed as one chunk by a
// flush thread at least every second or every 256 KiB, so a crash loses at most the last second, and the pump only
// copies bytes; typed bytes are kept only when input recording is on and only once their echo was seen (TypedEcho).
// `finish` writes the end as the stream's final chunk and chains the file's SHA-256 into the release log.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfSSH
import ShelfSystem
import ShelfVault

public final class SessionRecorder: ShellObserver, @unchecked Sendable {
    public let info: RecordingInfo
    public let path: String
    private let file: RecordingWriter
    private let vault: Vault
    private let condition = Condition()
    private var pending: [UInt8] = []
    /// The other buffer: `pending` is swapped with it at each flush, so the two are allocated once.
    private var spare: [UInt8] = []
    private let flushing = Lock()
    private var echo = TypedEcho()
    private var stopping = false
    private var flusherDone = false
    private let startedAt: Double
    /// Seconds between flushes: at most what a crash loses.
    static let flushInterval = 1.0
    static let chunkLimit = 256 << 10

    /// Starts a recording of a session to `host` in `locations`' recordings folder, reading the recordings key
    /// (its release logged for `by`). Throws when the key cannot be had or the file cannot be made.
    /// `cipher`: which format the file is written in (the CPU's best: AES-256-GCM where it has the instructions).
    public static func start(
        host: String, hostID: UUID?, size: TerminalSize, recordInput: Bool, by: String, vault: Vault,
        locations: DataLocations, cipher: RecordingCipherVersion = .preferred()
    ) throws -> SessionRecorder {
        let id = UUID()
        let key: RecordingsKey
        switch vault.recordingsKey(create: true, for: by, host: host, detail: Recordings.logItem(id)) {
        case .key(let found): key = found
        case .absent, .locked:
            throw ShelfError(
                .storage, "the vault is locked, so the session cannot be recorded",
                hint: "unlock the vault first (sshelf vault unlock), or connect without recording (--no-record)")
        case .unavailable(let reason):
            throw ShelfError(.storage, "the recordings key cannot be read: \(reason)")
        }
        let directory = try Recordings.directory(locations)
        let info = RecordingInfo(
            id: id, host: host, hostID: hostID, started: Date().timeIntervalSince1970, columns: size.columns,
            rows: size.rows, input: recordInput, by: by)
        let path = directory + "/" + Recordings.fileName(id)
        let writer = try RecordingWriter(path: path, id: id, key: key, cipher: cipher)
        return SessionRecorder(info: info, path: path, writer: writer, vault: vault)
    }

    private init(info: RecordingInfo, path: String, writer: RecordingWriter, vault: Vault) {
        self.info = info
        self.path = path
        self.file = writer
        self.vault = vault
        startedAt = Self.monotonic()
        pending.reserveCapacity(Self.chunkLimit + (64 << 10))
        RecordingFormat.appendEvent(.info(info), to: &pending)
        flush(final: false)
        BackgroundThread.start(name: "sshelf-record") { [self] in flushLoop() }
    }

    static func monotonic() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    private var elapsed: Double { Self.monotonic() - startedAt }

    // MARK: ShellObserver (the pump's thread)

    public func started(size: TerminalSize) {
        guard size.columns != info.columns || size.rows != info.rows else { return }
        resized(size)
    }

    public func output(_ bytes: UnsafeRawBufferPointer) {
        condition.lock()
        let time = elapsed
        if info.input {
            let kept = echo.shown(bytes, at: time)
            if !kept.isEmpty {
                RecordingFormat.appendEvent(kind: 0x69, time: time, payload: kept, to: &pending)
            }
        }
        RecordingFormat.appendEvent(kind: 0x6F, time: time, payload: bytes, to: &pending)
        // A full chunk is sealed by the flush thread, on another core while this one goes back to the network; only
        // when that thread is far behind (a slow disk) does the pump seal, so what is held stays bounded.
        let full = pending.count >= Self.chunkLimit
        let behind = pending.count >= Self.chunkLimit * 4
        if full { condition.signal() }
        condition.unlock()
        if behind { flush(final: false) }
    }

    public func input(_ bytes: [UInt8]) {
        guard info.input else { return }
        condition.lock()
        echo.typed(bytes, at: elapsed)
        condition.unlock()
    }

    public func resized(_ size: TerminalSize) {
        condition.lock()
        RecordingFormat.appendEvent(.resize(time: elapsed, columns: size.columns, rows: size.rows), to: &pending)
        condition.unlock()
    }

    // MARK: flushing

    /// Seals what was collected as one chunk (the last one when `final`). One flush at a time (the pump's, when a
    /// chunk is full, and the flush thread's), so chunks reach the file in the order their events were collected.
    /// The buffer taken is handed back for the next chunk, so collecting does not grow an array again.
    private func flush(final: Bool) {
        flushing.withLock {
            condition.lock()
            var plaintext = pending
            pending = spare
            spare = []
            condition.unlock()
            if final || !plaintext.isEmpty { file.append(plaintext, final: final) }
            plaintext.removeAll(keepingCapacity: true)
            condition.lock()
            spare = plaintext
            condition.unlock()
        }
    }

    /// Seals a chunk when the pump says one is full, and at the latest a second after the last flush.
    private func flushLoop() {
        condition.lock()
        var due = elapsed + Self.flushInterval
        while !stopping {
            let now = elapsed
            if pending.count < Self.chunkLimit && now < due {
                condition.wait(until: Date().addingTimeInterval(due - now))
                continue
            }
            echo.expire(now: now, limit: TypedEcho.window)
            condition.unlock()
            flush(final: false)
            condition.lock()
            due = now + Self.flushInterval
        }
        flusherDone = true
        condition.signal()
        condition.unlock()
    }

    /// Ends the recording: the end event in the final chunk, the file closed, its digest in the release log.
    /// Answers a warning when the digest could not be logged (the recording itself is kept).
    @discardableResult
    public func finish(how: String) -> String? {
        condition.lock()
        stopping = true
        condition.signal()
        while !flusherDone { condition.wait() }
        RecordingFormat.appendEvent(.end(time: elapsed, how: how), to: &pending)
        condition.unlock()
        flush(final: true)
        let (digest, size) = file.close()
        do {
            try vault.record(Recordings.finishedEntry(info: info, digest: digest, size: size))
        } catch {
            return "the recording was kept, but its digest could not be written to the release log: \(error.message)"
        }
        return nil
    }
}

/// The file of one recording being written: 0600, created new (never over another file), held under an exclusive
/// lock while it is written (so a recording whose writer is gone can be told from one still running), sealed in the
/// format `cipher` names (RecordingCipherVersion.preferred: AES-256-GCM where the CPU has the instructions).
final class RecordingWriter: @unchecked Sendable {
    private let fd: Int32
    private let sealer: RecordingChunkSealer
    private let digest = RecordingDigest()
    private let lock = Lock()
    private var size = 0
    /// Where the last two hand-offs to the disk started (`handOff`).
    private var handedOff = (previous: 0, last: 0)
    /// Bytes between hand-offs: the final sync waits for at most about this much.
    static let handOffEvery = 4 << 20
    private var failed = false
    /// The framed chunk (its length, the sealed bytes): one buffer, sealed into in place for every chunk (grown for a
    /// larger one), so writing a chunk allocates nothing and the kernel faults in no fresh pages for it.
    private var framed: UnsafeMutableRawBufferPointer

    init(path: String, id: UUID, key: RecordingsKey, cipher: RecordingCipherVersion) throws {
        guard
            let sealer = cipher.sealer(
                key: key, id: RecordingFormat.idBytes(id), associatedData: RecordingFormat.associatedData(id, cipher))
        else { throw ShelfError(.storage, "cannot start the recording's cipher (libcrypto could not make it)") }
        self.sealer = sealer
        framed = .allocate(byteCount: 4 + SessionRecorder.chunkLimit * 2 + sealer.overhead, alignment: 16)
        let made = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard made >= 0 else {
            framed.deallocate()
            throw ShelfError(.storage, "cannot create the recording \(path): \(String(cString: strerror(errno)))")
        }
        fd = made
        _ = fchmod(fd, 0o600)
        _ = flock(fd, LOCK_EX)
        write(RecordingFormat.magic(cipher) + RecordingFormat.idBytes(id) + sealer.header)
    }

    deinit { framed.deallocate() }

    func append(_ plaintext: [UInt8], final: Bool) {
        lock.withLock {
            // Sealed after four bytes left for its length: the chunk as the file frames it, in one buffer.
            let needed = 4 + plaintext.count + sealer.overhead
            if framed.count < needed {
                framed.deallocate()
                framed = .allocate(byteCount: needed, alignment: 16)
            }
            let into = UnsafeMutableRawBufferPointer(rebasing: framed[4...])
            guard let sealed = plaintext.withUnsafeBytes({ sealer.seal($0, final: final, into: into) }) else {
                // Sized above, so only libcrypto failing (out of memory): a chunk left out would be a recording
                // cut short, so nothing more is written and the file reads as interrupted up to here.
                failed = true
                return
            }
            let length = UInt32(sealed)
            framed[0] = UInt8(length >> 24)
            framed[1] = UInt8(length >> 16 & 0xff)
            framed[2] = UInt8(length >> 8 & 0xff)
            framed[3] = UInt8(length & 0xff)
            write(UnsafeRawBufferPointer(rebasing: framed[0..<(4 + sealed)]))
            if size - handedOff.last >= Self.handOffEvery { handOff() }
        }
    }

    /// Starts the disk's write of what was written since the last hand-off, and lets the page cache drop the range
    /// before it (written by now: a recording is not read back while it is made). Without it, the whole file
    /// waited in the page cache for the final fdatasync, and the session's end waited for the disk to take it all
    /// (87 ms for 200 MB here: docs/PERFORMANCE.md, "Session recordings").
    private func handOff() {
        let from = handedOff.previous
        _ = posix_fadvise(fd, off_t(from), off_t(size - from), POSIX_FADV_DONTNEED)
        handedOff = (handedOff.last, size)
    }

    private func write(_ bytes: [UInt8]) { bytes.withUnsafeBytes { write($0) } }

    private func write(_ buffer: UnsafeRawBufferPointer) {
        guard !failed, let base = buffer.baseAddress else { return }
        digest.update(buffer)
        size += buffer.count
        var offset = 0
        while offset < buffer.count {
            let written = Glibc.write(fd, base + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                failed = true
                return
            }
            offset += written
        }
    }

    /// Closes the file (synced); answers its SHA-256 and length.
    func close() -> (String, Int) {
        lock.withLock {
            _ = fdatasync(fd)
            _ = Glibc.close(fd)
            return (digest.hex(), size)
        }
    }
}
