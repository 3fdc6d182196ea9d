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

    static let knownFields: Set<String> = ["id", "name", "command", "tags", "updatedAt"]

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: AnyCodingKey.self)
        id = try c.field("id", UUID())
        name = try c.field("name", "")
        command = try c.field("command", "")
        tags = try c.field("tags", [String]())
        updatedAt = try c.field("updatedAt", Date(timeIntervalSince1970: 0))
        extra = try c.unknownFields(known: Self.knownFields)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: AnyCodingKey.self)
        try c.put("id", id)
        try c.put("name", name)
        try c.put("command", command)
        try c.put("tags", tags)
        try c.put("updatedAt", updatedAt)
        try c.putUnknown(extra.filter { !Self.knownFields.contains($0.key) })
    }
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

    public static func problems(_ snippet: Snippet) -> [ValidationError] {
        var found: [ValidationError] = []
        func add(_ field: String, _ message: String?) {
            if let message { found.append(ValidationError(field: field, message: message)) }
        }
        add("name", snippetNameProblem(snippet.name))
        if isBlank(snippet.command) { add("command", "the snippet's command is empty") }
        if snippet.command.utf8.count > maxSnippetCommandLength {
            add(
                "command",
                "the snippet's command is \(snippet.command.utf8.count) bytes, over the limit of "
                    + "\(maxSnippetCommandLength) (keep a longer script in a file on the host and save the command "
                    + "that runs it)")
        }
        add("command", controlCharacterProblem(snippet.command, allowNewlines: true).map { "the command \($0)" })
        if snippet.tags.count > maxTags { add("tags", "more than \(maxTags) tags") }
        for tag in snippet.tags { add("tags", tagProblem(tag)) }
        do { _ = try SnippetTemplate(snippet.command) } catch { add("command", error.description) }
        return found
    }
}
