// ReleaseLog: the hash-chained log of credential releases in the state folder (0600) — one line per password,
// key or passphrase the vault handed out and per agent signature: what, for which host or process, never a
// secret. Each line carries BLAKE2b(log key, previous MAC ‖ line); a MAC'd head record keeps the count and the
// last MAC, so an edited, removed, reordered or cut-off line is found by `verify`. Writers (agent, CLI, TUI)
// take an exclusive flock, so concurrent appends never interleave.
import Foundation
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
    /// Which part of sshelf released it: connect, exec, forward, tui, warm, copy-id or agent.
    public var by: String
    /// The host (or hosts of a jump chain) it was released for.
    public var host: String?
    /// The process that asked the agent to sign (name and pid, from the socket's peer credentials).
    public var process: String?
    /// Public facts: the identity's name, a signature's algorithm and key fingerprint.
    public var detail: String?

    /// The words for what a reference holds: password, private key, key passphrase…
    public static func what(_ reference: ReferenceKey) -> String {
        switch reference.secret {
        case .password: "password"
        case .privkey: "private key"
        case .passphrase: "key passphrase"
        case .remember: "remember setting"
        case .key: reference.owner == .sync ? "sync key" : "log key"
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

    init(seq: Int, time: Date, what: String, item: String, by: String, host: String?, process: String?, detail: String?)
    {
        self.seq = seq
        self.time = time
        self.what = what
        self.item = item
        self.by = by
        self.host = host
        self.process = process
        self.detail = detail
    }
}

public struct ReleaseLogError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var hint: String?
    public var description: String { message }
}

/// What `verify` found: the first problem, if any, and what held.
public struct ReleaseLogVerdict: Sendable, Equatable {
    public var lines: Int
    public var problems: [String]
    public var notes: [String]
    public var intact: Bool { problems.isEmpty }
}

public struct ReleaseLog: Sendable {
    public let path: String
    public let headPath: String
    let directory: String

    public init(locations: DataLocations) {
        path = locations.releaseLog
        headPath = locations.releaseLogHead
        directory = locations.stateDirectory
    }

    static let headLabel = Array("sshelf-release-log-head".utf8)
    static let firstLink = [UInt8](repeating: 0, count: LogMAC.length)

    // MARK: appending

    /// Appends one line. Fails (and the caller then refuses the release) when the log key cannot be read or the
    /// file cannot be written: every release is logged, or it does not happen.
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
        let fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, PrivateFiles.fileMode)
        guard fd >= 0 else { throw failure("open") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == getuid() else {
            throw ReleaseLogError(
                message: "\(path) is not a regular file of yours", hint: "move it away; sshelf starts a new log")
        }
        _ = fchmod(fd, PrivateFiles.fileMode)
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw failure("lock") }
        }
        defer { flock(fd, LOCK_UN) }

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
        guard let body = try? Self.encoder.encode(entry) else {
            throw ReleaseLogError(message: "the release log line could not be encoded", hint: nil)
        }
        let mac = LogMAC.mac(key: key, [previous.mac, Array(body)])
        let line = Array(body) + [0x09] + Array(Self.hex(mac).utf8) + [0x0a]
        guard writeAll(fd, line), fsync(fd) == 0 else { throw failure("write") }
        let head = Head(count: entry.seq, last: mac, key: key)
        do {
            try PrivateFiles.atomicWrite(Data(head.text.utf8), to: headPath)
        } catch {
            throw ReleaseLogError(message: "could not update \(headPath): \(error)", hint: nil)
        }
    }

    private func failure(_ operation: String) -> ReleaseLogError {
        ReleaseLogError(message: "could not \(operation) \(path): \(String(cString: strerror(errno)))", hint: nil)
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

    /// Every line that parses, oldest first, and how many did not. Needs no key: showing is not verifying.
    public func entries() throws(ReleaseLogError) -> (entries: [ReleaseEntry], damaged: Int) {
        guard let contents = try readFile() else { return ([], 0) }
        var entries: [ReleaseEntry] = []
        var damaged = 0
        for line in contents.split(separator: 0x0a) {
            if let parsed = Self.parse(Array(line)) { entries.append(parsed.entry) } else { damaged += 1 }
        }
        return (entries, damaged)
    }

    private func readFile() throws(ReleaseLogError) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw failure("open")
        }
        defer { close(fd) }
        while flock(fd, LOCK_SH) != 0 {
            guard errno == EINTR else { throw failure("lock") }
        }
        defer { flock(fd, LOCK_UN) }
        return readAll(fd)
    }

    // MARK: verifying

    /// Recomputes the chain with the log key and compares the end with the head record. Reports the first break
    /// in the chain (an edited line, a removed or reordered one) and a log shorter than its head (truncation).
    public func verify(vault: Vault) throws(ReleaseLogError) -> ReleaseLogVerdict {
        let contents = try readFile()
        let headExists = PrivateFiles.mode(of: headPath) != nil
        let key: SecretBytes
        switch vault.releaseLogKey(create: false) {
        case .key(let found): key = found
        case .absent:
            if contents == nil && !headExists {
                return ReleaseLogVerdict(lines: 0, problems: [], notes: ["nothing was released yet"])
            }
            return ReleaseLogVerdict(
                lines: 0,
                problems: [
                    "the log exists but the vault has no release log key: it cannot be verified (was the key removed?)"
                ], notes: [])
        case .locked:
            throw ReleaseLogError(
                message: "the release log key is locked",
                hint: "enter the vault passphrase (--passphrase-fd, or sshelf vault unlock)")
        case .unavailable(let reason):
            throw ReleaseLogError(message: "the release log key cannot be read: \(reason)", hint: nil)
        }
        guard let contents else {
            return ReleaseLogVerdict(
                lines: 0,
                problems: [
                    "the release log is missing, but releases were logged on this device (its key exists): it was deleted"
                ], notes: [])
        }
        var problems: [String] = []
        var notes: [String] = []
        var link = Self.firstLink
        var macs: [[UInt8]] = []
        let lines = contents.split(separator: 0x0a, omittingEmptySubsequences: false)
        let complete = contents.last == 0x0a ? lines.dropLast() : lines[...]
        if contents.last != 0x0a && !contents.isEmpty {
            problems.append("the log ends in the middle of a line (line \(lines.count))")
        }
        for (index, raw) in complete.enumerated() {
            let number = index + 1
            guard let parsed = Self.parse(Array(raw)) else {
                problems.append("line \(number) is not a log line: it was damaged or edited")
                break
            }
            guard parsed.entry.seq == number else {
                problems.append(
                    "line \(number) carries number \(parsed.entry.seq): lines were removed or reordered before it")
                break
            }
            let expected = LogMAC.mac(key: key, [link, parsed.body])
            guard LogMAC.equal(expected, parsed.mac) else {
                problems.append("line \(number) does not match its MAC: it was edited, or a line before it was changed")
                break
            }
            link = parsed.mac
            macs.append(parsed.mac)
        }
        let count = macs.count
        if problems.isEmpty {
            if let head = Head.load(headPath) {
                if !head.isValid(key: key) {
                    problems.append("the head record does not match its MAC: it was edited")
                } else if head.count > count {
                    problems.append(
                        "the log has \(count) lines but its head record says \(head.count): lines were cut off the end")
                } else if head.count > 0 && !LogMAC.equal(macs[head.count - 1], head.last) {
                    problems.append("line \(head.count) is not the line the head record recorded: the log was replaced")
                } else if head.count < count {
                    notes.append(
                        "\(count - head.count) line(s) after the head record (an append was interrupted before the head was updated); their chain holds"
                    )
                }
            } else if headExists || count > 0 {
                problems.append("the head record is missing or unreadable, so a cut-off end cannot be ruled out")
            }
        }
        return ReleaseLogVerdict(lines: count, problems: problems, notes: notes)
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

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

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

    /// The anchor against truncation: the number of lines and the last MAC, MAC'd with the log key.
    struct Head {
        var count: Int
        var last: [UInt8]
        var mac: [UInt8]

        init(count: Int, last: [UInt8], key: SecretBytes) {
            self.count = count
            self.last = last
            mac = Head.compute(count: count, last: last, key: key)
        }

        private init(count: Int, last: [UInt8], mac: [UInt8]) {
            self.count = count
            self.last = last
            self.mac = mac
        }

        static func compute(count: Int, last: [UInt8], key: SecretBytes) -> [UInt8] {
            LogMAC.mac(
                key: key,
                [
                    ReleaseLog.headLabel, SSHWire.uint32(UInt32(truncatingIfNeeded: count >> 32)),
                    SSHWire.uint32(UInt32(truncatingIfNeeded: count)), last,
                ])
        }

        func isValid(key: SecretBytes) -> Bool { LogMAC.equal(Head.compute(count: count, last: last, key: key), mac) }

        var text: String { "\(count) \(ReleaseLog.hex(last)) \(ReleaseLog.hex(mac))\n" }

        static func load(_ path: String) -> Head? {
            guard let data = FileManager.default.contents(atPath: path), data.count < 1024 else { return nil }
            let parts = String(decoding: data, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" })
            guard parts.count == 3, let count = Int(parts[0]), count >= 0,
                let last = ReleaseLog.unhex(Array(parts[1].utf8)), let mac = ReleaseLog.unhex(Array(parts[2].utf8))
            else { return nil }
            return Head(count: count, last: last, mac: mac)
        }
    }

    // MARK: IO

    /// The last 64 KiB (lines are far shorter), or the whole file when it is smaller.
    private func readTail(_ fd: Int32) -> [UInt8] {
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size > 0 else { return [] }
        let start = max(0, info.st_size - 64 * 1024)
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size - start))
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + filled, $0.count - filled, start + off_t(filled)) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            filled += count
        }
        let read = Array(bytes[0..<filled])
        // Drop a first line the window cut in two.
        guard start > 0, let firstBreak = read.firstIndex(of: 0x0a) else { return read }
        return Array(read[(firstBreak + 1)...])
    }

    private func readAll(_ fd: Int32) -> [UInt8] {
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

    private func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
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
