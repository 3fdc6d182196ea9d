// SSHConfigLexer: splits one ssh_config line into a keyword and arguments the way OpenSSH's readconf does:
// `Keyword args`, `Keyword=args`, double quotes, and a word starting with '#' ending the line.
import Foundation

public struct SSHConfigLine: Hashable, Sendable {
    /// The keyword as written; compare with `key`, which is lower-cased.
    public var keyword: String
    public var arguments: [String]
    public var file: String
    public var number: Int
    /// True for a Host line repeated after an Include to restore the block around it; never a new host.
    public var reopened = false

    public var key: String { keyword.lowercased() }
    public var location: String { "\(file):\(number)" }
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
        func fail(_ message: String) -> SSHConfigSyntaxError {
            SSHConfigSyntaxError(file: file, line: number, message: message)
        }
        guard raw.utf8.count <= maxLineLength else { throw fail("line is longer than \(maxLineLength) bytes") }
        if raw.unicodeScalars.contains(where: { $0 == "\0" }) { throw fail("line contains a NUL byte (is this a binary file?)") }
        var rest = raw.drop(while: { $0 == " " || $0 == "\t" || $0 == "\r" })
        while let last = rest.last, last == "\r" || last == " " || last == "\t" { rest = rest.dropLast() }
        if rest.isEmpty || rest.hasPrefix("#") { return nil }

        let keyword = rest.prefix(while: { $0 != " " && $0 != "\t" && $0 != "=" })
        rest = rest.dropFirst(keyword.count)
        rest = rest.drop(while: { $0 == " " || $0 == "\t" })
        if rest.hasPrefix("=") { rest = rest.dropFirst().drop(while: { $0 == " " || $0 == "\t" }) }
        guard !keyword.isEmpty else { throw fail("line starts with '=' and has no keyword") }

        var arguments: [String] = []
        var current = ""
        var inQuotes = false
        var hasToken = false
        var index = rest.startIndex
        while index < rest.endIndex {
            let ch = rest[index]
            if inQuotes {
                if ch == "\"" { inQuotes = false } else { current.append(ch) }
            } else if ch == "\"" {
                inQuotes = true
                hasToken = true
            } else if ch == " " || ch == "\t" {
                if hasToken { arguments.append(current) }
                current = ""
                hasToken = false
            } else if ch == "#" && !hasToken {
                break  // a word starting with '#' begins a comment
            } else if ch == "\\" && rest.index(after: index) < rest.endIndex
                && "\"\\".contains(rest[rest.index(after: index)])
            {
                index = rest.index(after: index)
                current.append(rest[index])
                hasToken = true
            } else {
                current.append(ch)
                hasToken = true
            }
            index = rest.index(after: index)
        }
        if inQuotes { throw fail("unterminated quote in '\(keyword)' line") }
        if hasToken { arguments.append(current) }
        return SSHConfigLine(keyword: String(keyword), arguments: arguments, file: file, number: number)
    }
}
