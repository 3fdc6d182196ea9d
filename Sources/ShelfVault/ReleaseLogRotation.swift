// ReleaseLogRotation: how the release log stays bounded — once `release.log` reaches its size it becomes
// `release.log.1` (older archives move up one number, the oldest past the limit is dropped) and the next line starts
// a new file, carrying the MAC of the line before it so the chain runs on across files and the oldest file kept
// still verifies once older ones are gone. The head record names the first line kept, so an archive deleted by
// hand is found. Also the reading of every file, oldest first, under the current file's lock.
import FoundationEssentials
import ShelfCore
import ShelfSystem

#if canImport(Glibc)
import Glibc
#endif

/// When the current file is archived, and how many archives are kept.
public struct ReleaseLogRotation: Sendable, Equatable {
    /// The current file is archived before a line is appended once it holds this many bytes.
    public var segmentBytes: Int
    /// Archived files kept (`release.log.1` newest … `release.log.N` oldest); at least 1.
    public var archives: Int

    public init(segmentBytes: Int, archives: Int) {
        self.segmentBytes = max(1, segmentBytes)
        self.archives = max(1, archives)
    }

    /// 1 MiB a file (about 4,000 lines), nine archives: at most 10 MiB on disk, the newest ~40,000 releases.
    public static let standard = ReleaseLogRotation(segmentBytes: 1 << 20, archives: 9)

    /// Test suites only (`SSHELF_TEST_RELEASE_LOG_ROTATION=BYTES,ARCHIVES`): small files, so a rotation takes a
    /// few releases instead of thousands.
    public static let testVariable = "SSHELF_TEST_RELEASE_LOG_ROTATION"

    /// The standard rotation, or the test suite's.
    public static var configured: ReleaseLogRotation {
        guard let text = ProcessInfo.processInfo.environment[testVariable] else { return standard }
        let parts = text.split(separator: ",").compactMap { Int($0) }
        guard parts.count == 2, parts[0] > 0, parts[1] > 0 else { return standard }
        return ReleaseLogRotation(segmentBytes: parts[0], archives: parts[1])
    }
}

extension ReleaseLog {
    /// One file of the log and its bytes.
    struct Segment {
        var name: String
        var bytes: [UInt8]
        var isCurrent: Bool
    }

    func archivePath(_ number: Int) -> String { path + ".\(number)" }

    /// The archive numbers present (`release.log.N`), oldest (highest) first.
    func archiveNumbers() -> [Int] {
        let base = path.lastPathPart + "."
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.compactMap { name -> Int? in
            guard name.hasPrefix(base) else { return nil }
            let suffix = name.dropFirst(base.count)
            guard !suffix.isEmpty, suffix.allSatisfy(\.isASCII), suffix.allSatisfy(\.isNumber),
                let number = Int(suffix),
                number > 0, String(number) == suffix
            else { return nil }
            return number
        }.sorted(by: >)
    }

    /// Every file of the log, oldest first, read under a shared lock on the current file (a writer rotating holds
    /// it exclusively, so no file moves while they are read). An archive that is the current file itself (a
    /// rotation cut short between linking and replacing) is read once.
    /// Every file is opened through the bounded reader's rule (a regular file, no link followed, never a wait on a
    /// FIFO): a FIFO, socket or link in the current file's place is refused at once with what it is.
    func segments() throws(ReleaseLogError) -> [Segment] {
        while true {
            let fd: Int32
            do { fd = try RegularFile.open(path, followLinks: false) } catch {
                guard error.kind == .missing else {
                    throw ReleaseLogError(message: "\(error)", hint: "move it away; sshelf starts a new log")
                }
                return archives(excluding: nil)
            }
            defer { close(fd) }
            while flock(fd, LOCK_SH) != 0 {
                guard errno == EINTR else { throw failure("lock") }
            }
            defer { flock(fd, LOCK_UN) }
            guard Self.isCurrent(fd, path: path) else { continue }
            var info = stat()
            _ = fstat(fd, &info)
            return archives(excluding: info)
                + [Segment(name: path.lastPathPart, bytes: readAll(fd), isCurrent: true)]
        }
    }

    private func archives(excluding current: stat?) -> [Segment] {
        archiveNumbers().compactMap { number in
            let file = archivePath(number)
            if let current, Self.sameFile(file, current) { return nil }
            guard let bytes = try? RegularFile.read(file, limit: Int.max, followLinks: false) else { return nil }
            return Segment(name: file.lastPathPart, bytes: bytes, isCurrent: false)
        }
    }

    static func sameFile(_ file: String, _ info: stat) -> Bool {
        var other = stat()
        return lstat(file, &other) == 0 && other.st_ino == info.st_ino && other.st_dev == info.st_dev
    }

    /// Archives the current file (held with `LOCK_EX` as `current`) and starts the next one with `entry`, chained to
    /// `link` — the last line of the archived file. In order, so a crash at any step leaves a log that verifies:
    /// the head first names the first line that will still be kept (more kept than named is fine; fewer is not),
    /// then the archives move up and the current file is hard-linked as `.1` (never a moment without a current
    /// file), then the new file — written whole, fsynced, and locked — replaces the current one, then the head.
    func rotate(current fd: Int32, starting entry: ReleaseEntry, link chain: (seq: Int, mac: [UInt8]), key: SecretBytes)
        throws(ReleaseLogError)
    {
        var current = stat()
        _ = fstat(fd, &current)
        // An interrupted rotation left `.1` as a second name of the current file: that name goes first.
        if Self.sameFile(archivePath(1), current) { unlink(archivePath(1)) }
        let present = archiveNumbers()
        let dropped = present.filter { $0 >= rotation.archives }
        let kept = present.filter { $0 < rotation.archives }

        // The oldest line kept once this rotation is done: the first line of the file that becomes the oldest.
        let known = headFirst(key: key)
        var first = known
        if !dropped.isEmpty {
            let oldest =
                kept.max().map { try? RegularFile.read(archivePath($0), limit: Int.max, followLinks: false) }
                ?? readAll(fd)
            if let oldest, let seq = Self.firstNumber(oldest) { first = max(first, seq) }
        }
        if first != known {
            try writeHead(Head(count: chain.seq, last: chain.mac, first: first, key: key))
        }

        for number in dropped { unlink(archivePath(number)) }
        for number in kept.sorted(by: >) {
            guard rename(archivePath(number), archivePath(number + 1)) == 0 else {
                throw failure("rename", archivePath(number))
            }
        }
        if Glibc.link(path, archivePath(1)) != 0 {
            // A file system without hard links: a plain rename, and a moment without a current file.
            guard rename(path, archivePath(1)) == 0 else { throw failure("archive") }
        }

        var started = entry
        started.previous = Self.hex(chain.mac)
        let (line, mac) = try Self.line(started, link: chain.mac, key: key)
        let temporary = path + ".new-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let next = open(temporary, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, PrivateFiles.fileMode)
        guard next >= 0 else { throw failure("create", temporary) }
        defer {
            flock(next, LOCK_UN)
            close(next)
        }
        _ = fchmod(next, PrivateFiles.fileMode)
        // Locked before it takes the current name: a writer that opens it next waits for the head below.
        _ = flock(next, LOCK_EX)
        guard writeAll(next, line), fsync(next) == 0, rename(temporary, path) == 0 else {
            let failed = failure("write", temporary)
            unlink(temporary)
            throw failed
        }
        syncDirectory()
        try writeHead(Head(count: started.seq, last: mac, first: first, key: key))
    }

    /// The number on the first line of a file's bytes that parses.
    static func firstNumber(_ bytes: [UInt8]) -> Int? {
        for line in bytes.split(separator: 0x0a) {
            if let parsed = parse(Array(line)) { return parsed.entry.seq }
        }
        return nil
    }

    private func syncDirectory() {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }
}
