// TargetWord: what a word naming hosts stands for — the one reading of targets every command uses (`run`, `cp`,
// `list`, `exec` and each command that takes a host): `@group/path` is always the group, whatever its name looks
// like (`@cafe` is the group cafe, never an id prefix), `tag:NAME` a tag, `id:PREFIX` a host by its id (what
// `--id` stands for), `q:WORDS` or any word with a space in it a search, anything else a host's name (or NAME@ID).
public enum TargetWord: Equatable, Sendable {
    case host(String)
    case hostID(String)
    case group(String)
    case tag(String)
    case search(String)

    public init(_ word: String) {
        if word.hasPrefix("@") {
            self = .group(String(word.dropFirst()))
        } else if word.hasPrefix("tag:") {
            self = .tag(String(word.dropFirst(4)))
        } else if word.hasPrefix("id:") {
            self = .hostID(String(word.dropFirst(3)))
        } else if word.hasPrefix("q:") {
            self = .search(String(word.dropFirst(2)))
        } else if word.contains(where: \.isWhitespace) {
            self = .search(word)
        } else {
            self = .host(word)
        }
    }

    /// The word `--id PREFIX` stands for.
    public static func id(_ prefix: String) -> String { "id:" + prefix }

    /// Whether the word names one host (a name, NAME@ID, id:PREFIX) rather than a group, a tag or a search.
    public var isOneHost: Bool {
        switch self {
        case .host, .hostID: true
        case .group, .tag, .search: false
        }
    }
}
