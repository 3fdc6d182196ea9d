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
        /// Pages of its own (a written page copied from the file, or one swapped out): such a mapping is never
        /// released.
        var ownKiB = 0

        /// Private and read-only, of a file (not [vdso], not anonymous), and every page still the file's.
        var isReleasable: Bool {
            (permissions == "r-xp" || permissions == "r--p") && path.hasPrefix("/") && ownKiB == 0 && residentKiB > 0
        }

        static func all(in smaps: String) -> [Mapping] { all(in: Array(smaps.utf8)) }

        /// The mappings of an smaps text, read in one pass over its bytes (it is read after every burst: no line
        /// or word is made into a string but a mapping's path).
        static func all(in smaps: [UInt8]) -> [Mapping] {
            var mappings: [Mapping] = []
            smaps.withUnsafeBufferPointer { text in
                var line = 0
                while line < text.count {
                    var end = line
                    while end < text.count && text[end] != 0x0A { end += 1 }
                    let first = text[line]
                    if (0x30...0x39).contains(first) || (0x61...0x66).contains(first) {
                        if let mapping = header(text, line, end) { mappings.append(mapping) }
                    } else if !mappings.isEmpty {
                        // A page written in a private mapping is copied into one of its own (Anonymous), and stays
                        // its own when swapped out (Swap): either makes it unsafe to drop. (Dirty pages of a
                        // read-only mapping are the file's not yet written back — a binary just built — and are the
                        // file's content.)
                        if let kib = field("Rss:", text, line, end) {
                            mappings[mappings.count - 1].residentKiB = kib
                        } else if let kib = field("Anonymous:", text, line, end) ?? field("Swap:", text, line, end) {
                            mappings[mappings.count - 1].ownKiB += kib
                        }
                    }
                    line = end + 1
                }
            }
            return mappings
        }

        /// `start-end perms offset device inode   path` (the path may hold spaces, or be absent).
        private static func header(_ text: UnsafeBufferPointer<UInt8>, _ from: Int, _ end: Int) -> Mapping? {
            var index = from
            func word() -> ArraySlice<UInt8> {
                while index < end && text[index] == 0x20 { index += 1 }
                let start = index
                while index < end && text[index] != 0x20 { index += 1 }
                return ArraySlice(text[start..<index])
            }
            let range = word()
            guard let dash = range.firstIndex(of: 0x2D), let low = hex(range[..<dash]),
                let high = hex(range[(dash + 1)...])
            else { return nil }
            let permissions = String(decoding: word(), as: UTF8.self)
            for _ in 0..<3 { _ = word() }
            while index < end && text[index] == 0x20 { index += 1 }
            let path = String(decoding: UnsafeBufferPointer(rebasing: text[index..<end]), as: UTF8.self)
            return Mapping(start: low, end: high, permissions: permissions, path: path)
        }

        /// The number of `name   N kB`, when the line is that field.
        private static func field(_ name: StaticString, _ text: UnsafeBufferPointer<UInt8>, _ from: Int, _ end: Int)
            -> Int?
        {
            let count = name.utf8CodeUnitCount
            guard end - from > count else { return nil }
            for offset in 0..<count where text[from + offset] != name.utf8Start[offset] { return nil }
            var index = from + count
            while index < end && text[index] == 0x20 { index += 1 }
            var value = 0
            var digits = 0
            while index < end, (0x30...0x39).contains(text[index]) {
                value = value * 10 + Int(text[index] - 0x30)
                digits += 1
                index += 1
            }
            return digits > 0 ? value : nil
        }

        private static func hex(_ digits: ArraySlice<UInt8>) -> Int? {
            guard !digits.isEmpty, digits.count <= 16 else { return nil }
            var value = 0
            for digit in digits {
                switch digit {
                case 0x30...0x39: value = value << 4 | Int(digit - 0x30)
                case 0x61...0x66: value = value << 4 | Int(digit - 0x61 + 10)
                default: return nil
                }
            }
            return value
        }
    }

    /// A debugger is attached (TracerPid in /proc/self/status is not 0).
    private static func traced() -> Bool {
        guard let status = read("/proc/self/status") else { return true }
        for line in String(decoding: status, as: UTF8.self).split(separator: "\n") where line.hasPrefix("TracerPid:") {
            return line.dropFirst("TracerPid:".count).filter { !$0.isWhitespace } != "0"
        }
        return true
    }

    /// A /proc file whole (its size is 0 to stat, so read until the end).
    private static func read(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return count == 0 ? bytes : nil }
            bytes.append(contentsOf: chunk[..<count])
        }
    }
}
