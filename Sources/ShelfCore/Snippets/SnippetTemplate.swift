// SnippetTemplate: a snippet's command read as text and parameters — `{{name}}`, `{{name:default}}`, and `\{{` for
// two literal braces — and filled in with the values given. Every mistake is named with its place in the text.
import FoundationEssentials

public struct SnippetTemplateError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String
}

public struct SnippetTemplate: Hashable, Sendable {
    public struct Parameter: Hashable, Sendable {
        public var name: String
        /// nil: the parameter has no default, a value must be given.
        public var defaultValue: String?
    }

    enum Part: Hashable, Sendable {
        case text(String)
        case parameter(String)
    }

    let parts: [Part]
    /// Each parameter once, in the order it first appears; the first default written wins.
    public let parameters: [Parameter]

    public init(_ command: String) throws(SnippetTemplateError) {
        var parts: [Part] = [], parameters: [Parameter] = []
        var text = ""
        let scalars = Array(command.unicodeScalars)
        var index = 0
        func at(_ offset: Int, _ scalar: Unicode.Scalar) -> Bool {
            index + offset < scalars.count && scalars[index + offset] == scalar
        }
        while index < scalars.count {
            if at(0, "\\"), at(1, "{"), at(2, "{") {
                text += "{{"
                index += 3
                continue
            }
            guard at(0, "{"), at(1, "{") else {
                text.unicodeScalars.append(scalars[index])
                index += 1
                continue
            }
            let start = index
            var end = index + 2
            while end + 1 < scalars.count, !(scalars[end] == "}" && scalars[end + 1] == "}") {
                if scalars[end] == "{" && scalars[end + 1] == "{" { break }
                end += 1
            }
            let column = start + 1
            guard end + 1 < scalars.count, scalars[end] == "}", scalars[end + 1] == "}" else {
                throw SnippetTemplateError(
                    description:
                        "'{{' at character \(column) is not closed with '}}' (write \\{{ for two literal braces)")
            }
            var inside = String(String.UnicodeScalarView(scalars[(start + 2)..<end]))
            var defaultValue: String?
            if let colon = inside.firstIndex(of: ":") {
                defaultValue = String(inside[inside.index(after: colon)...])
                inside = String(inside[..<colon])
            }
            let name = inside.trimmingSpaces()
            if let problem = SnippetTemplate.parameterNameProblem(name) {
                throw SnippetTemplateError(
                    description:
                        "'{{\(String(String.UnicodeScalarView(scalars[(start + 2)..<end])))}}' at character \(column) "
                        + "is not a parameter: \(problem) (write \\{{ for two literal braces)")
            }
            if !text.isEmpty { parts.append(.text(text)) }
            text = ""
            parts.append(.parameter(name))
            if let known = parameters.firstIndex(where: { $0.name == name }) {
                if parameters[known].defaultValue == nil { parameters[known].defaultValue = defaultValue }
            } else {
                parameters.append(Parameter(name: name, defaultValue: defaultValue))
            }
            index = end + 2
        }
        if !text.isEmpty { parts.append(.text(text)) }
        self.parts = parts
        self.parameters = parameters
    }

    /// A parameter's name: a letter, then letters, digits, `_` or `-`; at most 64 bytes.
    public static func parameterNameProblem(_ name: String) -> String? {
        if name.isEmpty { return "the name is empty" }
        if name.utf8.count > 64 { return "the name is longer than 64 bytes" }
        guard let first = name.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic,
            name.unicodeScalars.allSatisfy({
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-")
            })
        else {
            return "a name is a letter, then letters, digits, '_' or '-'"
        }
        return nil
    }

    /// The command with every parameter replaced by its value (given, else its default). Values go in as typed —
    /// the command is the user's own shell text — but never with a control character: a newline typed into a
    /// session would run what follows it as a command of its own.
    public func filled(_ values: [String: String]) throws(SnippetTemplateError) -> String {
        let names = Set(parameters.map(\.name))
        if let unknown = values.keys.sorted().first(where: { !names.contains($0) }) {
            throw SnippetTemplateError(
                description:
                    "the snippet has no parameter '\(unknown)'"
                    + (names.isEmpty
                        ? " (it has none)" : " (it has: \(parameters.map(\.name).joined(separator: ", ")))"))
        }
        for (name, value) in values.sorted(by: { $0.key < $1.key }) {
            if let problem = Validation.controlCharacterProblem(value) {
                throw SnippetTemplateError(description: "the value of '\(name)' \(problem)")
            }
        }
        let missing = parameters.filter { values[$0.name] == nil && $0.defaultValue == nil }.map(\.name)
        if !missing.isEmpty {
            throw SnippetTemplateError(
                description: "no value for \(missing.map { "'\($0)'" }.joined(separator: ", ")), which has no default")
        }
        var out = ""
        for part in parts {
            switch part {
            case .text(let text): out += text
            case .parameter(let name): out += values[name] ?? parameters.first { $0.name == name }?.defaultValue ?? ""
            }
        }
        return out
    }
}
