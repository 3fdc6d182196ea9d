// Snippet: a saved command with parameters (`{{name}}`, `{{name:default}}`), synced as config like a host: not a
// secret, but it travels only inside sealed entries, so the remote never reads it.
import FoundationEssentials

public struct Snippet: Hashable, Sendable, Codable, Identifiable {
    public var id: UUID
    public var name: String
    /// Shell text run on the host (exec, run) or typed into a session; its parameters are filled in first.
    public var command: String
    public var tags: [String]
    public var updatedAt: Date
    /// Fields written by a newer version, kept verbatim.
    public var extra: [String: JSONValue]

    public init(
        id: UUID = UUID(), name: String = "", command: String = "", tags: [String] = [], updatedAt: Date = Date(),
        extra: [String: JSONValue] = [:]
    ) {
        self.id = id
        self.name = name
        self.command = command
        self.tags = tags
        self.updatedAt = updatedAt
        self.extra = extra
    }

    /// Every key this version models (SnippetFields); anything else rides in `extra`.
    static var knownFields: Set<String> { SnippetFields.table.knownKeys }

    public init(from decoder: Decoder) throws { self = try SnippetFields.table.decode(from: decoder) }

    public func encode(to encoder: Encoder) throws { try SnippetFields.table.encode(self, to: encoder) }
}

extension Snippet {
    /// Why this snippet must not be run or typed (its first broken rule), or nil.
    public var unusable: String? { Validation.problems(self).first?.message }
}

extension Validation {
    /// Longer than any command line a person saves; short enough to type into a session without a stall.
    public static let maxSnippetCommandLength = 16 * 1024

    /// A snippet's name is one word a shell need not quote: it is typed after `sshelf snippet run`.
    public static func snippetNameProblem(_ name: String) -> String? {
        if name.isEmpty { return "snippet name is empty" }
        if name.utf8.count > 64 { return "snippet name is longer than 64 bytes" }
        let allowed = name.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII
                && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                    || "-_.".unicodeScalars.contains(
                        scalar))
        }
        guard allowed, name.first != "-", name.first != "." else {
            return "snippet name '\(name)' may hold only letters, digits, '-', '_' and '.' (not first: '-', '.')"
        }
        return nil
    }

    /// A snippet's problems, field by field as its table declares them (SnippetFields).
    public static func problems(_ snippet: Snippet) -> [ValidationError] { SnippetFields.table.problems(snippet) }

    /// What is wrong with a snippet's command: empty, too long, a control character, a parameter that does not parse.
    static func commandProblems(_ snippet: Snippet) -> [String?] {
        var found: [String?] = []
        if isBlank(snippet.command) { found.append("the snippet's command is empty") }
        if snippet.command.utf8.count > maxSnippetCommandLength {
            found.append(
                "the snippet's command is \(snippet.command.utf8.count) bytes, over the limit of "
                    + "\(maxSnippetCommandLength) (keep a longer script in a file on the host and save the command "
                    + "that runs it)")
        }
        found.append(controlCharacterProblem(snippet.command, allowNewlines: true).map { "the command \($0)" })
        do { _ = try SnippetTemplate(snippet.command) } catch { found.append(error.description) }
        return found
    }
}
