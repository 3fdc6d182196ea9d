// SSHConfigArgument: writes a value as one ssh_config argument that OpenSSH reads back exactly (its argv_split in
// misc.c: ' and " quote, \ escapes ' " \ and, outside quotes, a space; a word starting with # ends the line), and
// reads each written line back with sshelf's lexer before it is kept. What cannot be written so — a control
// character, an empty value, a % or ${ where the installed or a newer ssh would expand it — is refused with the
// reason, and the caller leaves the host out instead of writing a file that stops every ssh.
import FoundationEssentials

public enum SSHConfigArgument {
    public struct Unwritable: Error, Equatable, Sendable {
        public var reason: String
        public init(_ reason: String) { self.reason = reason }
    }

    /// How ssh treats the value after reading it.
    public enum Kind: Sendable {
        /// Taken as it is (Host patterns, Port, forwards, ProxyJump, the user's own IdentityFile text).
        case literal
        /// HostName: ssh expands %h and %% in it, so a % is written as %%.
        case hostname
        /// User: literal for ssh 9.2, expanded (%-tokens, ${VAR}) by newer ssh: % and ${ cannot be written for both.
        case user
        /// A file or socket path sshelf names (IdentityAgent, IdentityFile, UserKnownHostsFile): ssh expands
        /// %-tokens and ${VAR}; a % is written as %%, a ${ cannot be written.
        case path
    }

    /// Bytes that make the reader do something other than take the byte: quotes, the escape, blanks, a comment's
    /// '#', and '=' (read as the keyword's separator at the start of the arguments).
    static let special: Set<UInt8> = Set(" \t\"'\\#=".utf8)

    /// `Keyword ARG…`, each argument written by `write`, then read back by the lexer: the line is returned only when
    /// the reader gives back exactly `values`.
    public static func line(_ keyword: String, _ values: [String], _ kind: Kind) throws(Unwritable) -> String {
        // Plain words (nearly every value) are written and read as they are: nothing to quote, nothing to read back.
        if values.allSatisfy(isPlain) { return keyword + " " + values.joined(separator: " ") }
        var text = keyword
        for value in values { text += " " + (try write(value, kind, keyword: keyword)) }
        let lexed = try? SSHConfigLexer.lex(Substring(text), file: "bridge", number: 1)
        guard let lexed, lexed.keyword == keyword, lexed.arguments.map({ readBack($0, kind) }) == values else {
            throw Unwritable(
                "its \(keyword) '\(values.joined(separator: " "))' cannot be written so ssh reads it back as it is")
        }
        return text
    }

    /// One argument, quoted and escaped as needed; throws when no spelling of it reads back as `value`.
    public static func write(_ value: String, _ kind: Kind, keyword: String) throws(Unwritable) -> String {
        if value.isEmpty { throw Unwritable("its \(keyword) is empty") }
        if let problem = Validation.controlCharacterProblem(value) { throw Unwritable("its \(keyword) \(problem)") }
        var text = value
        switch kind {
        case .literal: break
        case .hostname: text = text.replacing("%", with: "%%")
        case .user:
            if value.contains("%") || value.contains("${") {
                throw Unwritable(
                    "its User '\(value)' holds % or ${, which newer ssh expands in User (it cannot be "
                        + "written for every ssh)")
            }
        case .path:
            if value.contains("${") { throw Unwritable("its \(keyword) '\(value)' holds ${, which ssh would expand") }
            text = text.replacing("%", with: "%%")
        }
        return SSHConfigEmitter.quote(text)
    }

    /// Printable ASCII that neither the reader nor ssh's expansion gives a meaning: the lexer's plain-word path takes
    /// it back byte for byte (SSHConfigQuotingTests reads every kind of value back through the lexer).
    static func isPlain(_ value: String) -> Bool {
        !value.isEmpty
            && value.utf8.allSatisfy { byte in
                switch byte {
                case 0x22, 0x23, 0x24, 0x25, 0x27, 0x3D, 0x5C: false  // " # $ % ' = \
                case 0x21...0x7E: true
                default: false
                }
            }
    }

    /// What ssh makes of an argument the lexer read, for the kinds ssh expands (only the %% sshelf wrote matters).
    static func readBack(_ argument: String, _ kind: Kind) -> String {
        switch kind {
        case .literal, .user: argument
        case .hostname, .path: argument.replacing("%%", with: "%")
        }
    }
}
