// Snippets: saving a snippet (its rules, a name no other snippet has), finding one by name or id prefix, deleting
// it, and filling in its parameters — the same for `sshelf snippet …`, the TUI's picker and the session escape.
import FoundationEssentials
import ShelfCore
import ShelfStore

public enum SnippetOperations {
    /// Saves `snippet` (new or edited) in one transaction: refused when its fields break a rule, or when another
    /// snippet already has its name (ignoring ASCII case: names are typed after `snippet run`).
    public static func save(_ snippet: Snippet, in store: Store) throws {
        var snippet = snippet
        snippet.tags = uniqueTags(snippet.tags)
        let problems = Validation.problems(snippet)
        guard problems.isEmpty else { throw ShelfError.invalid(problems) }
        try store.write { store in
            let folded = snippet.name.lowercased()
            if let other = try store.snippets().first(where: { $0.id != snippet.id && $0.name.lowercased() == folded })
            {
                throw ShelfError(
                    .invalid, "a snippet named '\(Display.safe(other.name))' exists already",
                    hint: "pick another name, or change that one: sshelf snippet edit \(ShellWord.quote(other.name)) "
                        + "-- COMMAND")
            }
            snippet.updatedAt = Date()
            try store.save(snippet)
        }
    }

    public static func delete(_ snippet: Snippet, in store: Store) throws {
        try store.write { store in try store.deleteSnippet(snippet.id) }
    }

    /// The snippet `text` names: its name (exact, then ignoring case), or an id prefix of at least 4 hex digits
    /// (two devices can each save a `restart` before they sync).
    public static func find(_ text: String, in store: Store) throws -> Snippet {
        let all = try store.snippets()
        var named = all.filter { $0.name == text }
        if named.isEmpty { named = all.filter { $0.name.lowercased() == text.lowercased() } }
        if named.count == 1 { return named[0] }
        if named.count > 1 {
            let ids = named.map { Display.shortID($0.id) }.joined(separator: ", ")
            throw ShelfError(
                .usage, "\(named.count) snippets are named '\(Display.safe(text))': ids \(ids)",
                hint: "give the id instead of the name (e.g. \(Display.shortID(named[0].id))), or rename one: "
                    + "sshelf snippet edit \(Display.shortID(named[0].id)) --name NEW")
        }
        let prefix = text.lowercased()
        let byID = all.filter { prefix.count >= 4 && $0.id.uuidString.lowercased().hasPrefix(prefix) }
        if byID.count == 1 { return byID[0] }
        throw ShelfError(
            .notFound, "no snippet named '\(Display.safe(text))'",
            hint: Resolve.didYouMean(Suggestions.closest(to: text, among: all.map(\.name)))
                ?? (all.isEmpty ? "save one: sshelf snippet add NAME -- COMMAND" : "see 'sshelf snippet list'"))
    }

    /// `KEY=VALUE` words (`--param`) as values; a word without `=` or with a bad name is refused, naming it.
    public static func values(_ words: [String]) throws -> [String: String] {
        var values: [String: String] = [:]
        for word in words {
            guard let equals = word.firstIndex(of: "=") else {
                throw ShelfError(
                    .usage, "--param '\(Display.safe(word))' has no '='", hint: "give it as --param NAME=VALUE")
            }
            let name = String(word[..<equals])
            if let problem = SnippetTemplate.parameterNameProblem(name) {
                throw ShelfError(.usage, "--param '\(Display.safe(word))': \(problem)")
            }
            if values[name] != nil {
                throw ShelfError(.usage, "--param \(Display.safe(name)) is given twice", hint: "give it once")
            }
            values[name] = String(word[word.index(after: equals)...])
        }
        return values
    }

    /// The command `snippet` runs with `values` (each missing one takes its default).
    public static func command(_ snippet: Snippet, values: [String: String]) throws -> String {
        // A snippet that came by sync was saved by another device's rules: checked again before it is used.
        if let problem = snippet.unusable {
            throw ShelfError(
                .invalid, "snippet '\(Display.safe(snippet.name))' cannot be used: \(problem)",
                hint: "fix it: sshelf snippet edit \(ShellWord.quote(snippet.name)) -- COMMAND")
        }
        do {
            return try SnippetTemplate(snippet.command).filled(values)
        } catch {
            let parameters = (try? SnippetTemplate(snippet.command).parameters) ?? []
            throw ShelfError(
                .usage, "snippet '\(Display.safe(snippet.name))': \(error.description)",
                hint: parameters.isEmpty
                    ? nil
                    : "its parameters: "
                        + parameters.map { $0.name + ($0.defaultValue.map { " (default: \(Display.safe($0)))" } ?? "") }
                        .joined(separator: ", ") + "; give each as --param NAME=VALUE")
        }
    }
}

/// Tags in their first order, each once.
private func uniqueTags(_ tags: [String]) -> [String] {
    var seen = Set<String>()
    return tags.filter { seen.insert($0).inserted }
}
