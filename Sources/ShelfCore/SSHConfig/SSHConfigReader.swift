// SSHConfigReader: reads an ssh_config and everything it Includes (globs, relative paths, ~), into a flat
// list of lines; an Include keeps the surrounding Host block active after the included file, as OpenSSH does.
// IO is injected, so this stays pure and testable.
import Dispatch
import FoundationEssentials
import Glibc

public struct SSHConfigSource: Sendable {
    /// Reads a file's text; throws with a message for missing or unreadable files.
    public var read: @Sendable (String) throws -> String
    /// Expands a glob pattern to existing paths, sorted.
    public var glob: @Sendable (String) -> [String]
    public var homeDirectory: String
    /// Why an Included file is not read (nil: read it): sshelf's own output — the bridge and the files beside it —
    /// would come back in as copies of the hosts it was written from.
    public var skip: (@Sendable (String) -> String?)?

    public init(
        read: @escaping @Sendable (String) throws -> String, glob: @escaping @Sendable (String) -> [String],
        homeDirectory: String, skip: (@Sendable (String) -> String?)? = nil
    ) {
        self.read = read
        self.glob = glob
        self.homeDirectory = homeDirectory
        self.skip = skip
    }
}

public struct SSHConfigDocument: Sendable {
    public var lines: [SSHConfigLine] = []
    /// Problems that did not stop reading: an Include that matched nothing is fine (OpenSSH agrees), an
    /// unreadable one is reported here.
    public var warnings: [String] = []
    /// Files left unread on purpose (`SSHConfigSource.skip`), each with its reason.
    public var notes: [String] = []
    public var files: [String] = []
}

public enum SSHConfigReader {
    /// OpenSSH's READCONF_MAX_DEPTH.
    public static let maxIncludeDepth = 16
    /// The largest file read (each Included file on its own): 256 MiB is some two million hosts, far past any
    /// real config, and still small enough to hold in memory while importing.
    public static let maxFileSize = 256 * 1024 * 1024

    /// Why a file over the limit is refused, and what to do about it.
    public static let sizeProblem =
        "is larger than \(maxFileSize / 1024 / 1024) MiB, the most sshelf reads as one ssh config"
    public static let sizeHint =
        "split it into several files joined with Include lines (each up to \(maxFileSize / 1024 / 1024) MiB)"

    /// Reads `path`; relative Include paths resolve against `includeBase` (OpenSSH uses ~/.ssh for the user's
    /// config; for another file we use that file's folder).
    public static func read(path: String, source: SSHConfigSource, includeBase: String? = nil) throws
        -> SSHConfigDocument
    {
        var document = SSHConfigDocument()
        let base = includeBase ?? path.parentPath
        try readFile(path, depth: 0, base: base, source: source, into: &document)
        return document
    }

    public static func expandTilde(_ path: String, home: String) -> String {
        if path == "~" { return home }
        if path.hasPrefix("~/") { return home + path.dropFirst(1) }
        return path
    }

    /// From this many bytes a file is lexed in two halves at once (lines are independent of each other).
    static let parallelLexBytes = 1 << 20

    /// Every non-blank line of a file's bytes, in order; a large file is split at a line break and lexed on two cores.
    static func lexLines(_ bytes: UnsafeBufferPointer<UInt8>, file: String) throws(SSHConfigSyntaxError)
        -> [SSHConfigLine]
    {
        guard bytes.count >= parallelLexBytes, let base = bytes.baseAddress,
            let cut = memchr(base + bytes.count / 2, 0x0A, bytes.count - bytes.count / 2)
        else { return try lexLines(bytes, file: file, firstNumber: 1, capacity: linesAtMost(bytes)) }
        let middle = UnsafeRawPointer(cut) - UnsafeRawPointer(base) + 1
        var newlines = 0
        var at = 0
        while at < middle, let hit = memchr(base + at, 0x0A, middle - at) {
            newlines += 1
            at = UnsafeRawPointer(hit) - UnsafeRawPointer(base) + 1
        }
        let first = UnsafeBufferPointer(rebasing: bytes[..<middle])
        let second = UnsafeBufferPointer(rebasing: bytes[middle...])
        // Each half's array is made at its final size: the first one's holds the whole file's lines, so the second
        // half's are moved in at the end without a third array (growing by doubling, then joining into a new array,
        // had three arrays of lines alive at once: about 40 MB of a 100,000-host import's peak).
        let secondCount = linesAtMost(second)
        let halves = Halves(parts: [
            (first, 1, linesAtMost(first) + secondCount),
            (second, newlines + 1, secondCount),
        ])
        let results = PartResults(2, empty: Result<[SSHConfigLine], SSHConfigSyntaxError>.success([]))
        DispatchQueue.concurrentPerform(iterations: 2) { half in
            let (part, firstNumber, capacity) = halves.parts[half]
            results.set(
                half,
                Result { () throws(SSHConfigSyntaxError) in
                    try lexLines(part, file: file, firstNumber: firstNumber, capacity: capacity)
                })
        }
        // The first half's error is the first in the file. Its array is taken out of the results (the only reference
        // to it, so the second half's lines are moved into its spare room), and the second half is freed elsewhere.
        var lines = try results.take(0).get()
        let rest = try results.take(1).get()
        lines += rest
        SSHConfigRelease.elsewhere((consume rest, results))
        return lines
    }

    /// How many lines of `bytes` can be more than blank: an array of that many holds every line lexed from them.
    static func linesAtMost(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var count = 0
        var start = 0
        while start < bytes.count {
            var i = start
            while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0D { i += 1 }
            if i < bytes.count, bytes[i] != 0x0A { count += 1 }
            guard let base = bytes.baseAddress, let hit = memchr(base + i, 0x0A, bytes.count - i) else { break }
            start = UnsafeRawPointer(hit) - UnsafeRawPointer(base) + 1
        }
        return count
    }

    /// The two halves of the file's bytes with their first line numbers, only read while both are lexed (the bytes
    /// outlive the call).
    struct Halves: @unchecked Sendable {
        let parts: [(UnsafeBufferPointer<UInt8>, Int, Int)]
    }

    /// The lines of `bytes`, numbered from `firstNumber`, in an array made with room for `capacity`; a line ssh would
    /// reject is an error, except a Match line, whose block is skipped like any Match block.
    static func lexLines(_ bytes: UnsafeBufferPointer<UInt8>, file: String, firstNumber: Int, capacity: Int = 0)
        throws(SSHConfigSyntaxError)
        -> [SSHConfigLine]
    {
        var lines: [SSHConfigLine] = []
        lines.reserveCapacity(capacity)
        var words = SSHConfigWordCache()
        var number = firstNumber - 1
        var start = 0
        while start <= bytes.count {
            let end =
                bytes.baseAddress.flatMap { base in
                    memchr(base + start, 0x0A, bytes.count - start).map {
                        UnsafeRawPointer($0) - UnsafeRawPointer(base)
                    }
                } ?? bytes.count
            number += 1
            let raw = UnsafeBufferPointer(rebasing: bytes[start..<end])
            if let note = SSHConfigAnnotation.line(raw, file: file, number: number) {
                lines.append(note)
                start = end + 1
                continue
            }
            do throws(SSHConfigSyntaxError) {
                if let line = try SSHConfigLexer.lex(raw, file: file, number: number, words: &words) {
                    lines.append(line)
                }
            } catch {
                guard SSHConfigLexer.keyword(of: raw)?.lowercased() == "match" else { throw error }
                var line = SSHConfigLine(keyword: "Match", arguments: [], file: file, number: number)
                line.unreadable = error.message
                lines.append(line)
            }
            start = end + 1
        }
        return lines
    }

    private static func readFile(
        _ path: String, depth: Int, base: String, source: SSHConfigSource,
        into document: inout SSHConfigDocument
    ) throws {
        let text = try source.read(path)
        guard text.utf8.count <= maxFileSize else {
            throw SSHConfigSyntaxError(file: path, line: 0, message: "the file \(sizeProblem); \(sizeHint)")
        }
        document.files.append(path)
        var lastBlock: SSHConfigLine? = nil
        /// The `#@group:` in force in this file: its own annotations only (an Included file's end where it ends).
        var group = ""
        var contents = text
        let lexed = contents.withUTF8 { bytes in
            Result { () throws(SSHConfigSyntaxError) in try lexLines(bytes, file: path) }
        }
        let lines = try lexed.get()
        // A file without Include lines (a large generated one, usually) is taken whole: no copy line by line.
        if document.lines.isEmpty && !lines.contains(where: { $0.key == "include" }) {
            document.lines = lines
            return
        }
        for line in lines {
            let number = line.number
            switch line.key {
            case "host", "match":
                lastBlock = line
                document.lines.append(line)
            case SSHConfigAnnotation.group:
                group = line.arguments.first ?? ""
                document.lines.append(line)
            case "include":
                guard !line.arguments.isEmpty else {
                    throw SSHConfigSyntaxError(file: path, line: number, message: "Include needs a path")
                }
                guard depth < maxIncludeDepth else {
                    throw SSHConfigSyntaxError(
                        file: path, line: number,
                        message: "Include nested more than \(maxIncludeDepth) deep (a loop?)")
                }
                let before = document.lines.count
                for pattern in line.arguments {
                    var expanded = expandTilde(pattern, home: source.homeDirectory)
                    if !expanded.hasPrefix("/") { expanded = base.appendingPathPart(expanded) }
                    for match in source.glob(expanded) {
                        if let why = source.skip?(match) {
                            document.notes.append("\(line.location): Include \(match) not read: \(why)")
                            continue
                        }
                        let fileStart = document.lines.count
                        defer {
                            // A `#@group:` in the included file groups that file's hosts, not the ones after it.
                            if document.lines[fileStart...].contains(where: { $0.key == SSHConfigAnnotation.group }) {
                                document.lines.append(
                                    SSHConfigLine(
                                        keyword: SSHConfigAnnotation.group, arguments: [group], file: path,
                                        number: number))
                            }
                        }
                        do {
                            try readFile(match, depth: depth + 1, base: base, source: source, into: &document)
                        } catch let error as SSHConfigSyntaxError {
                            throw error
                        } catch {
                            document.warnings.append("\(line.location): Include \(match): \(error)")
                        }
                    }
                }
                // An included file's own Host lines end at its end: reopen the block this Include sat in.
                let included = document.lines[before...]
                if included.contains(where: { $0.key == "host" || $0.key == "match" }) {
                    var reopened =
                        lastBlock
                        ?? SSHConfigLine(keyword: "Host", arguments: ["*"], file: path, number: number)
                    reopened.reopened = true
                    document.lines.append(reopened)
                }
            default:
                document.lines.append(line)
            }
        }
    }
}
