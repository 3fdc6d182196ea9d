// ReleaseLog: the hash-chained log of credential releases in the state folder (0600) — one line per password,
// key or passphrase the vault handed out and per agent signature: what, for which host or process, never a
// secret. Each line carries BLAKE2b(log key, previous MAC ‖ line); a MAC'd head record keeps the count, the
// last MAC and the first line still kept, so an edited, removed, reordered or cut-off line is found by `verify`
// (ReleaseLogVerify.swift), across rotations (ReleaseLogRotation.swift). Writers (agent, CLI, TUI) take an
// exclusive flock, so concurrent appends never interleave.
import FoundationEssentials
import ShelfCore
import ShelfSystem

#if canImport(Glibc)
import Glibc
#endif

/// One line of the log, as `sshelf log` shows it.
public struct ReleaseEntry: Codable, Sendable, Equatable {
    public var seq: Int
    public var time: Date
    /// password, private key, key passphrase or signature.
    public var what: String
    /// The vault item (a reference key), or the identity whose key signed.
    public var item: String
    /// Which part of sshelf released it: the command that logged in (connect, exec — a warm keeper's login too —,
    /// forward, trust, copy-id), the TUI (tui for a shell, files for the file pane, copy-id), a fleet run (run, cp),
    /// agent, vault export or sync (a credential set sealed for the remote); a line that releases nothing names what
    /// it records (ca sign, tmux, a recording's removal); a certificate renewed before a login names the part that
    /// logs in (forward up for the supervisor).
    public var by: String
    /// The host (or hosts of a jump chain) it was released for.
    public var host: String?
    /// The process that asked the agent to sign (name and pid, from the socket's peer credentials).
    public var process: String?
    /// Public facts: the identity's name, a signature's algorithm and key fingerprint.
    public var detail: String?
    /// On the first line of a file started by a rotation: the MAC (hex) of the line before it, in the archived
    /// file. The chain runs on through it, so the oldest file kept can be verified once older ones are gone.
    public var previous: String?

    /// The words for what a reference holds: password, private key, key passphrase…
    public static func what(_ reference: ReferenceKey) -> String {
        switch reference.secret {
        case .password: "password"
        case .privkey: "private key"
        case .passphrase: "key passphrase"
        case .remember: "remember setting"
        case .key:
            switch reference.owner {
            case .sync: "sync key"
            case .recordings: "recordings key"
            default: "log key"
            }
        case .signing: "sync signing key"
        case .group: "sync group secret"
        case .epoch: "sync group key"
        case .invite: "sync invite secret"
        }
    }

    /// A line to append: the log gives it its number and the time of the append.
    public init(
        what: String, item: String, by: String, host: String? = nil, process: String? = nil, detail: String? = nil
    ) {
        self.init(
            seq: 0, time: Date(timeIntervalSince1970: 0), what: what, item: item, by: by, host: host,
            process: process, detail: detail)
    }

    init(
        seq: Int, time: Date, what: String, item: String, by: String, host: String?, process: String?, detail: String?,
        previous: String? = nil
    ) {
        self.seq = seq
        self.time = time
        self.what = what
        self.item = item
        self.by = by
        self.host = host
        self.process = process
        self.detail = detail
        self.previous = previous
    }
}

public struct ReleaseLogError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var hint: String?
    /// The hint as data, when it names a command or the vault passphrase: each face words it.
    public var guidance: Hint? = nil
    public var description: String { message }
}

public struct ReleaseLog: Sendable {
    public let path: String
    public let headPath: String
    let directory: String
    /// When the current file is archived, and how many archives are kept.
    public var rotation: ReleaseLogRotation

    public init(locations: DataLocations, rotation: ReleaseLogRotation = .configured) {
        path = locations.releaseLog
        headPath = locations.releaseLogHead
        directory = locations.stateDirectory
        self.rotation = rotation
    }

    static let firstLink = [UInt8](repeating: 0, count: LogMAC.length)

    // MARK: appending

    /// Appends one line. Fails (and the caller then refuses the release) when the log key cannot be read or the
    /// file cannot be written: every release is logged, or it does not happen. A current file that reached the
    /// rotation size is archived first, and the line starts the next one.
    public func append(_ record: ReleaseEntry, vault: Vault, now: Date = Date()) throws(ReleaseLogError) {
        let key: SecretBytes
        switch vault.releaseLogKey(create: true) {
        case .key(let found): key = found
        case .locked:
            throw ReleaseLogError(
                message: "the release log key is locked", hint: "unlock the vault: sshelf vault unlock")
        case .absent, .unavailable:
            throw ReleaseLogError(
                message: "the release log key cannot be read from the vault", hint: "run 'sshelf vault status'")
        }
        do {
            try PrivateFiles.ensureDirectory(directory)
        } catch {
            throw ReleaseLogError(message: "cannot create \(directory): \(error)", hint: nil)
        }
        let fd = try openCurrentLocked()
        defer {
            flock(fd, LOCK_UN)
            close(fd)
        }

        // Only the end of the log is read: appending stays as cheap at a million lines as at ten.
        let tail = readTail(fd)
        if let last = tail.last, last != 0x0a {
            // A line cut short by a crash: end it, so the new line stays whole (verify reports the cut one).
            guard writeAll(fd, [0x0a]) else { throw failure("write") }
        }
        let previous = lastLink(tail, fd: fd, key: key)
        var entry = record
        entry.seq = previous.seq + 1
        entry.time = now
        entry.previous = nil
        if fileSize(fd) >= rotation.segmentBytes {
            try rotate(current: fd, starting: entry, link: previous, key: key)
            return
        }
        let (line, mac) = try Self.line(entry, link: previous.mac, key: key)
        guard writeAll(fd, line), fsync(fd) == 0 else { throw failure("write") }
        try writeHead(Head(count: entry.seq, last: mac, first: headFirst(key: key), key: key))
    }

    /// Opens the current file and takes its exclusive lock. A file that was archived while we waited for the lock
    /// (another writer rotated) is let go and the new current one opened instead.
    private func openCurrentLocked() throws(ReleaseLogError) -> Int32 {
        while true {
            let fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, PrivateFiles.fileMode)
            guard fd >= 0 else { throw failure("open") }
            var info = stat()
            guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == getuid() else {
                close(fd)
                throw ReleaseLogError(
                    message: "\(path) is not a regular file of yours", hint: "move it away; sshelf starts a new log")
            }
            _ = fchmod(fd, PrivateFiles.fileMode)
            while flock(fd, LOCK_EX) != 0 {
                guard errno == EINTR else {
                    close(fd)
                    throw failure("lock")
                }
            }
            if Self.isCurrent(fd, path: path) { return fd }
            flock(fd, LOCK_UN)
            close(fd)
        }
    }

    /// Whether `fd` is still the file at `path` (not archived or replaced since it was opened).
    static func isCurrent(_ fd: Int32, path: String) -> Bool {
        var opened = stat()
        var named = stat()
        return fstat(fd, &opened) == 0 && lstat(path, &named) == 0 && opened.st_ino == named.st_ino
            && opened.st_dev == named.st_dev
    }

    /// The line for `entry` chained to `link`, and its MAC.
    static func line(_ entry: ReleaseEntry, link: [UInt8], key: SecretBytes) throws(ReleaseLogError)
        -> (line: [UInt8], mac: [UInt8])
    {
        guard let body = try? encoder.encode(entry) else {
            throw ReleaseLogError(message: "the release log line could not be encoded", hint: nil)
        }
        let mac = LogMAC.mac(key: key, [link, Array(body)])
        return (Array(body) + [0x09] + Array(hex(mac).utf8) + [0x0a], mac)
    }

    func writeHead(_ head: Head) throws(ReleaseLogError) {
        do {
            try PrivateFiles.atomicWrite(Data(head.text.utf8), to: headPath)
        } catch {
            throw ReleaseLogError(message: "could not update \(headPath): \(error)", hint: nil)
        }
    }

    /// The first line number the head says is kept (1 until a rotation dropped an archive).
    func headFirst(key: SecretBytes) -> Int {
        guard let head = Head.load(headPath), head.isValid(key: key) else { return 1 }
        return head.first
    }

    func failure(_ operation: String, _ file: String? = nil) -> ReleaseLogError {
        ReleaseLogError(
            message: "could not \(operation) \(file ?? path): \(String(cString: strerror(errno)))", hint: nil)
    }

    /// The MAC and number to chain the next line to: the last line's, when it parses; otherwise the head
    /// record's, when its MAC holds; otherwise a fresh start (verify reports the damage either way).
    private func lastLink(_ tail: [UInt8], fd: Int32, key: SecretBytes) -> (seq: Int, mac: [UInt8]) {
        if let last = tail.split(separator: 0x0a).last, let parsed = Self.parse(Array(last)) {
            return (parsed.entry.seq, parsed.mac)
        }
        if let head = Head.load(headPath), head.isValid(key: key) { return (head.count, head.last) }
        return (readAll(fd).split(separator: 0x0a).count, Self.firstLink)
    }

    // MARK: reading

    /// Every line that parses, oldest first (the archives, then the current file), and how many did not. Needs
    /// no key: showing is not verifying.
    public func entries() throws(ReleaseLogError) -> (entries: [ReleaseEntry], damaged: Int) {
        var entries: [ReleaseEntry] = []
        var damaged = 0
        for segment in try segments() {
            for line in segment.bytes.split(separator: 0x0a) {
                if let parsed = Self.parse(Array(line)) { entries.append(parsed.entry) } else { damaged += 1 }
            }
        }
        return (entries, damaged)
    }

    // MARK: format

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()

    /// `json TAB mac-hex`; nil for anything else.
    static func parse(_ line: [UInt8]) -> (entry: ReleaseEntry, body: [UInt8], mac: [UInt8])? {
        guard let tab = line.lastIndex(of: 0x09) else { return nil }
        let body = Array(line[..<tab])
        guard let mac = unhex(line[(tab + 1)...]), mac.count == LogMAC.length,
            let entry = try? decoder.decode(ReleaseEntry.self, from: Data(body))
        else { return nil }
        return (entry, body, mac)
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { TextFormat.hex($0) }.joined() }

    static func unhex<S: Collection>(_ text: S) -> [UInt8]? where S.Element == UInt8 {
        guard text.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        var high: UInt8? = nil
        for character in text {
            let value: UInt8
            switch character {
            case 0x30...0x39: value = character - 0x30
            case 0x61...0x66: value = character - 0x61 + 10
            default: return nil
            }
            if let upper = high {
                out.append(upper << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return out
    }

    // MARK: IO

    /// The last 64 KiB (lines are far shorter), or the whole file when it is smaller.
    func readTail(_ fd: Int32) -> [UInt8] {
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size > 0 else { return [] }
        let start = max(0, info.st_size - 64 * 1024)
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size - start))
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes {
                pread(fd, $0.baseAddress! + filled, $0.count - filled, start + off_t(filled))
            }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            filled += count
        }
        let read = Array(bytes[0..<filled])
        // Drop a first line the window cut in two.
        guard start > 0, let firstBreak = read.firstIndex(of: 0x0a) else { return read }
        return Array(read[(firstBreak + 1)...])
    }

    func readAll(_ fd: Int32) -> [UInt8] {
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var offset: off_t = 0
        while true {
            let count = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, offset) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return contents }
            contents += chunk[0..<count]
            offset += off_t(count)
        }
    }

    func fileSize(_ fd: Int32) -> Int {
        var info = stat()
        return fstat(fd, &info) == 0 ? Int(info.st_size) : 0
    }

    func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }
}
