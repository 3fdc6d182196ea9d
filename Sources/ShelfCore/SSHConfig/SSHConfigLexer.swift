// SSHConfigLexer: splits one ssh_config line into a keyword and arguments the way OpenSSH's readconf does:
// `Keyword args`, `Keyword=args`, then argv_split's rules — single and double quotes, backslash escapes, and a word
// starting with '#' ending the line. The bridge reads each line it writes back through it.
import FoundationEssentials
import Glibc

public struct SSHConfigLine: Hashable, Sendable {
    /// The keyword as written; compare with `key`, which is lower-cased.
    public var keyword: String {
        didSet { key = keyword.lowercased() }
    }
    /// The words after the keyword, quotes and escapes read (SSHConfigWords: the first one inline).
    public var arguments: SSHConfigWords
    public var file: String
    /// The line's number in its file (kept in 32 bits beside `reopened`: a file is at most 256 MiB).
    public var number: Int {
        get { Int(storedNumber) }
        set { storedNumber = Int32(truncatingIfNeeded: newValue) }
    }
    private var storedNumber: Int32
    /// True for a Host line repeated after an Include to restore the block around it; never a new host.
    public var reopened = false
    /// What few lines have, kept out of line (nil: neither): two strings in every line were 24 bytes more in each of a
    /// 100,000-host file's 414,000 lines, 10 MB of the import's peak (docs/PERFORMANCE.md, "Import").
    private var rare: RareParts? = nil
    /// Everything after the keyword and its separator, as written, for the keywords sshelf keeps verbatim as
    /// options (not filled for the ones it models: no copy of every HostName line of a 100,000-host file).
    public var rawArguments: String {
        get { rare?.rawArguments ?? "" }
        set { rare = RareParts.made(rawArguments: newValue, unreadable: unreadable) }
    }
    /// A Match line the lexer could not read (an unterminated quote…): its block is skipped like any Match block.
    public var unreadable: String? {
        get { rare?.unreadable }
        set { rare = RareParts.made(rawArguments: rawArguments, unreadable: newValue) }
    }
    /// The keyword lower-cased, made once (the resolver asks for it on every line of every matching block).
    public private(set) var key: String

    public init(keyword: String, arguments: SSHConfigWords, file: String, number: Int, reopened: Bool = false) {
        self.init(keyword: keyword, key: keyword.lowercased(), arguments: arguments, file: file, number: number)
        self.reopened = reopened
    }

    /// The lexer's: the lower-cased keyword is made once.
    init(keyword: String, key: String, arguments: SSHConfigWords, file: String, number: Int) {
        self.keyword = keyword
        self.key = key
        self.arguments = arguments
        self.file = file
        storedNumber = Int32(truncatingIfNeeded: number)
    }

    public var location: String { "\(file):\(number)" }

    /// A line's text as written and why it cannot be read, shared by its copies (immutable: a setter makes a new one).
    private final class RareParts: Hashable, Sendable {
        let rawArguments: String
        let unreadable: String?

        private init(rawArguments: String, unreadable: String?) {
            self.rawArguments = rawArguments
            self.unreadable = unreadable
        }

        /// The parts, or nil when there are none (so a line without them compares equal however it was made).
        static func made(rawArguments: String, unreadable: String?) -> RareParts? {
            guard !rawArguments.isEmpty || unreadable != nil else { return nil }
            return RareParts(rawArguments: rawArguments, unreadable: unreadable)
        }

        static func == (lhs: RareParts, rhs: RareParts) -> Bool {
            lhs.rawArguments == rhs.rawArguments && lhs.unreadable == rhs.unreadable
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(rawArguments)
            hasher.combine(unreadable)
        }
    }
}

public struct SSHConfigSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var message: String
    public var description: String { "\(file):\(line): \(message)" }
}

public enum SSHConfigLexer {
    /// OpenSSH refuses lines over 4 KiB-ish; we allow more but not unbounded input.
    public static let maxLineLength = 16 * 1024

    /// Returns nil for blank and comment lines.
    public static func lex(_ raw: Substring, file: String, number: Int) throws(SSHConfigSyntaxError) -> SSHConfigLine? {
        var line = raw
        let result = line.withUTF8 { bytes in
            Result { () throws(SSHConfigSyntaxError) in try lex(bytes, file: file, number: number) }
        }
        return try result.get()
    }

    /// The first word of a line (its keyword), read without lexing the rest; nil for blank and comment lines.
    public static func keyword(of raw: UnsafeBufferPointer<UInt8>) -> String? {
        var start = 0
        while start < raw.count, raw[start] == 0x20 || raw[start] == 0x09 || raw[start] == 0x0D { start += 1 }
        var end = start
        while end < raw.count, raw[end] != 0x20, raw[end] != 0x09, raw[end] != 0x3D, raw[end] != 0x0D { end += 1 }
        guard end > start, raw[start] != 0x23 else { return nil }
        return String(decoding: UnsafeBufferPointer(rebasing: raw[start..<end]), as: UTF8.self)
    }

    /// The same on a line's UTF-8 bytes (the reader's path: no Character walking for 100,000-host files).
    public static func lex(_ raw: UnsafeBufferPointer<UInt8>, file: String, number: Int) throws(SSHConfigSyntaxError)
        -> SSHConfigLine?
    {
        var words = SSHConfigWordCache()
        return try lex(raw, file: file, number: number, words: &words)
    }

    /// The same, sharing the words other lines repeat through `words` (the reader keeps one for a whole file).
    static func lex(
        _ raw: UnsafeBufferPointer<UInt8>, file: String, number: Int, words: inout SSHConfigWordCache
    ) throws(SSHConfigSyntaxError) -> SSHConfigLine? {
        func fail(_ message: String) -> SSHConfigSyntaxError {
            SSHConfigSyntaxError(file: file, line: number, message: message)
        }
        guard raw.count <= maxLineLength else { throw fail("line is longer than \(maxLineLength) bytes") }
        if let base = raw.baseAddress, memchr(base, 0, raw.count) != nil {
            throw fail("line contains a NUL byte (is this a binary file?)")
        }
        let space: UInt8 = 0x20, tab: UInt8 = 0x09, cr: UInt8 = 0x0D, quote: UInt8 = 0x22, hash: UInt8 = 0x23
        var start = 0
        var end = raw.count
        while start < end, raw[start] == space || raw[start] == tab || raw[start] == cr { start += 1 }
        while end > start, raw[end - 1] == cr || raw[end - 1] == space || raw[end - 1] == tab { end -= 1 }
        if start == end || raw[start] == hash { return nil }
        var i = start
        while i < end, raw[i] != space, raw[i] != tab, raw[i] != 0x3D { i += 1 }
        let keywordEnd = i
        while i < end, raw[i] == space || raw[i] == tab { i += 1 }
        if i < end, raw[i] == 0x3D {
            i += 1
            while i < end, raw[i] == space || raw[i] == tab { i += 1 }
        }
        guard keywordEnd > start else { throw fail("line starts with '=' and has no keyword") }
        let argumentStart = i
        let keyword = String(decoding: UnsafeBufferPointer(rebasing: raw[start..<keywordEnd]), as: UTF8.self)

        var arguments = SSHConfigWords()
        let single: UInt8 = 0x27, backslash: UInt8 = 0x5C
        // A host's names and address are its own; other words (users, key files, jump hosts, options) repeat.
        let key = keyword.lowercased()
        let repeats = key != "host" && key != "hostname"
        // A plain word (no quote, no escape: nearly all of them) becomes a String straight from the line.
        while true {
            var j = i
            while j < end, raw[j] != space, raw[j] != tab, raw[j] != quote, raw[j] != single, raw[j] != backslash {
                j += 1
            }
            guard j == end || raw[j] == space || raw[j] == tab, j > i, raw[i] != hash else { break }
            let word = UnsafeBufferPointer(rebasing: raw[i..<j])
            arguments.append(repeats ? words.word(word) : String(decoding: word, as: UTF8.self))
            i = j
            while i < end, raw[i] == space || raw[i] == tab { i += 1 }
            if i == end { break }
        }
        // The rest as OpenSSH's argv_split (misc.c) reads it: ' and " quote (each ends only its own kind); \ before
        // ' " \ — or, outside quotes, a space — stands for that character, before anything else it is itself; a
        // word that starts with # ends the line.
        var current: [UInt8] = []
        var openQuote: UInt8 = 0
        var hasToken = false
        while i < end {
            let byte = raw[i]
            if byte == backslash, i + 1 < end,
                raw[i + 1] == quote || raw[i + 1] == single || raw[i + 1] == backslash
                    || (openQuote == 0 && raw[i + 1] == space)
            {
                i += 1
                current.append(raw[i])
                hasToken = true
            } else if openQuote == 0 && (byte == space || byte == tab) {
                if hasToken { arguments.append(String(decoding: current, as: UTF8.self)) }
                current.removeAll(keepingCapacity: true)
                hasToken = false
            } else if openQuote == 0 && byte == hash && !hasToken {
                break  // a word starting with '#' begins a comment
            } else if openQuote == 0 && (byte == quote || byte == single) {
                openQuote = byte
                hasToken = true
            } else if openQuote != 0 && byte == openQuote {
                openQuote = 0
            } else {
                current.append(byte)
                hasToken = true
            }
            i += 1
        }
        let inQuotes = openQuote != 0
        if inQuotes { throw fail("unterminated quote in '\(keyword)' line") }
        if hasToken { arguments.append(String(decoding: current, as: UTF8.self)) }
        var line = SSHConfigLine(keyword: keyword, key: key, arguments: arguments, file: file, number: number)
        // A Match line's too: a block only ssh can decide is kept and written back as it was written.
        if (!SSHOption.modelled.contains(line.key) || line.key == "match") && line.key != "identityfile" {
            line.rawArguments = String(decoding: UnsafeBufferPointer(rebasing: raw[argumentStart..<end]), as: UTF8.self)
        }
        return line
    }
}
