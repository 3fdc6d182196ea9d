// SnippetFields: every field of a Snippet, declared once (RecordField), as a host's are (HostFields): the store's
// columns, the sync field groups, the JSON and the validation come from this list.
import FoundationEssentials

public enum SnippetFields {
    public static let table = RecordTable<Snippet>(
        table: "snippets", fields: fields, extra: \.extra,
        blank: { Snippet(id: RecordTableIDs.none, updatedAt: Date(timeIntervalSince1970: 0)) })

    typealias Field = RecordField<Snippet>

    static let fields: [Field] = [
        Field("id", group: nil, storage: .id(\.id), json: .id(\.id, "id")),
        Field(
            "name", group: "name", storage: .text(\.name, "name"), json: .value(\.name, "name", ""),
            problems: Field.check("name") { Validation.snippetNameProblem($0.name) }),
        Field(
            "command", group: "command", storage: .text(\.command, "command"), json: .value(\.command, "command", ""),
            problems: Field.checks("command") { snippet, add in Validation.commandProblems(snippet).forEach(add) }),
        // Tags merge as sets, value by value (FieldSets), as a host's do.
        Field(
            "tags", group: "tags", merge: .set, storage: .joined(\.tags, "tags"), json: .value(\.tags, "tags", []),
            problems: Field.checks("tags") { snippet, add in
                if snippet.tags.count > Validation.maxTags { add("more than \(Validation.maxTags) tags") }
                for tag in snippet.tags { add(Validation.tagProblem(tag)) }
            }),
        Field(
            "updatedAt", group: "updated", merge: .quiet, storage: .date(\.updatedAt, "updated_at"),
            json: .value(\.updatedAt, "updatedAt", Date(timeIntervalSince1970: 0))),
    ]
}
