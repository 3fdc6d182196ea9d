// ProcessMemory: what a long-running process (the user service) gives back after a burst of work. Its resident memory
// is mostly clean pages of files — the binary's code and constant data, the libraries' — mapped by whatever code ran
// once (the start-up, a sync run, a login; the kernel maps up to 64 KiB around each page touched), and kept mapped
// for the process's whole life though the idle loop never runs them again. `settle` unmaps those pages from this
// process (they stay in the page cache, shared and clean, and come back with a minor fault when code runs again) and
// gives malloc's free pages back. Only mappings no write can have reached are released: private, read-only, of a
// file, with no page of their own (Anonymous and Swap 0) — so nothing is lost, whatever the mapping.
import CDescriptorShims
import Glibc

public enum ProcessMemory {
    /// At most `arenas` malloc arenas. glibc gives each thread that allocates an arena of its own (up to 8 a core),
    /// and each keeps its free pages; a process of few, mostly idle threads needs no more than two. Set before the
    /// threads start.
    public static func limitArenas(_ arenas: Int32) { _ = cshims_malloc_arena_max(arenas) }

    /// After a burst of work: malloc's free pages given back, and the read-only file pages mapped unmapped. The bytes
    /// of file pages released (0 under a debugger: its breakpoints are written into the code's pages).
    @discardableResult
    public static func settle() -> Int {
        _ = cshims_malloc_trim()
        guard !traced(), let smaps = read("/proc/self/smaps") else { return 0 }
        var released = 0
        for mapping in Mapping.all(in: smaps) where mapping.isReleasable {
            guard let start = UnsafeMutableRawPointer(bitPattern: mapping.start) else { continue }
            if madvise(start, mapping.end - mapping.start, MADV_DONTNEED) == 0 {
                released += mapping.residentKiB * 1024
            }
        }
        return released
    }

    /// One mapping of /proc/self/smaps: its range, permissions, file, and the pages of its own it holds.
    struct Mapping: Equatable {
        var start = 0
        var end = 0
        var permissions = ""
        var path = ""
        var residentKiB = 0
        /// Pages written (copied from the file) or swapped out: such a mapping is never released.
        var ownKiB = 0

        /// Private and read-only, of a file (not [vdso], not anonymous), and every page still the file's.
        var isReleasable: Bool {
            (permissions == "r-xp" || permissions == "r--p") && path.hasPrefix("/") && ownKiB == 0 && residentKiB > 0
        }

        static func all(in smaps: String) -> [Mapping] {
            var mappings: [Mapping] = []
            for line in smaps.split(separator: "\n") {
                let words = line.split(separator: " ", omittingEmptySubsequences: true)
                if let head = words.first, let dash = head.firstIndex(of: "-"), words.count >= 5,
                    let start = Int(head[..<dash], radix: 16),
                    let end = Int(head[head.index(after: dash)...], radix: 16)
                {
                    let path = words.count > 5 ? words[5...].joined(separator: " ") : ""
                    mappings.append(Mapping(start: start, end: end, permissions: String(words[1]), path: path))
                    continue
                }
                guard !mappings.isEmpty, words.count >= 2, let kib = Int(words[1]) else { continue }
                switch words[0] {
                case "Rss:": mappings[mappings.count - 1].residentKiB = kib
                // A mapping whose every page is the file's has none of these; any one makes it unsafe to drop.
                case "Anonymous:", "Swap:", "Private_Dirty:", "Shared_Dirty:":
                    mappings[mappings.count - 1].ownKiB += kib
                default: break
                }
            }
            return mappings
        }
    }

    /// A debugger is attached (TracerPid in /proc/self/status is not 0).
    private static func traced() -> Bool {
        guard let status = read("/proc/self/status") else { return true }
        for line in status.split(separator: "\n") where line.hasPrefix("TracerPid:") {
            return line.dropFirst("TracerPid:".count).filter { !$0.isWhitespace } != "0"
        }
        return true
    }

    /// A /proc file whole (its size is 0 to stat, so read until the end).
    private static func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return count == 0 ? String(decoding: bytes, as: UTF8.self) : nil }
            bytes.append(contentsOf: chunk[..<count])
        }
    }
}
