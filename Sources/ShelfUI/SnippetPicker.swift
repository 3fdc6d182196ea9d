// SnippetPicker: `x` — a saved snippet picked by typing part of its name, tags or command (fzf-style, the rule the
// host search scores by), each parameter asked with its default, then the filled-in command run on the marked hosts
// (the selected one when none is marked) through the run pane: its confirmation, its release-log entry, its report.
import FoundationEssentials
import ShelfCore

public struct SnippetPicker: Sendable, Equatable {
    /// The snippets as the catalog had them when the picker opened.
    public var snippets: [Snippet]
    public var filter = ""
    /// Indices into `snippets` that match the filter, best first.
    public var matches: [Int]
    public var cursor = 0
    /// Once chosen: the snippet, its parameters and the values typed for those asked so far.
    public var chosen: Snippet?
    public var parameters: [SnippetTemplate.Parameter] = []
    public var values: [String] = []
    public var input = ""
    /// What is wrong with the last Enter (a parameter without a default left empty).
    public var problem: String?
    /// The hosts it will run on, for the title.
    public var hostNames: [String]

    public init(snippets: [Snippet], hostNames: [String]) {
        self.snippets = snippets
        self.hostNames = hostNames
        matches = Array(snippets.indices)
    }

    /// The parameter asked for now (nil while picking).
    public var asking: SnippetTemplate.Parameter? {
        chosen == nil || values.count >= parameters.count ? nil : parameters[values.count]
    }

    public var selected: Snippet? { matches.indices.contains(cursor) ? snippets[matches[cursor]] : nil }

    /// Matches of `filter` over name, tags and command, best first (ties keep the list's order: by name).
    mutating func refilter() {
        let term = Array(filter.lowercased().utf8)
        guard !term.isEmpty else {
            matches = Array(snippets.indices)
            cursor = 0
            return
        }
        var scored: [(index: Int, score: Int32)] = []
        for (index, snippet) in snippets.enumerated() {
            let fields = [snippet.name, snippet.tags.joined(separator: " "), snippet.command]
            let best = fields.compactMap { field -> Int32? in
                let bytes = Array(field.lowercased().utf8)
                return term.withUnsafeBufferPointer { t in bytes.withUnsafeBufferPointer { FuzzyScore.score(t, in: $0) }
                }
            }.max()
            if let best { scored.append((index, best)) }
        }
        matches = scored.sorted { $0.score != $1.score ? $0.score > $1.score : $0.index < $1.index }.map(\.index)
        cursor = 0
    }
}

enum SnippetPickerReducer {
    /// `x`: the picker for the marked hosts (the selected one when none is marked).
    static func open(_ state: inout UIState) -> [Effect] {
        let hosts = FleetPaneReducer.targets(state)
        guard !hosts.isEmpty else { return [] }
        guard !state.catalog.snippets.isEmpty else {
            state.notice = Notice(
                "no snippets yet: save one with sshelf snippet add NAME -- 'COMMAND {{param}}'", isError: true)
            return []
        }
        state.snippetPicker = SnippetPicker(snippets: state.catalog.snippets, hostNames: hosts.map(\.name))
        state.mode = .snippets
        return []
    }

    /// The catalog was read again (a snippet saved elsewhere, or synced): a picker still choosing lists the new set,
    /// keeping its filter and the snippet under the cursor when it is still there.
    static func reloaded(_ state: inout UIState) {
        guard var picker = state.snippetPicker, picker.chosen == nil, picker.snippets != state.catalog.snippets else {
            return
        }
        let keep = picker.selected?.id
        picker.snippets = state.catalog.snippets
        picker.refilter()
        picker.cursor = picker.matches.firstIndex { picker.snippets[$0].id == keep } ?? 0
        state.snippetPicker = picker
    }

    static func key(_ state: inout UIState, _ key: Key) -> [Effect] {
        guard var picker = state.snippetPicker else {
            state.mode = .browse
            return []
        }
        // Every character is text (the filter, or a parameter's value): the picker's keys are not characters.
        if case .char(let ch) = key {
            append(&picker, ch)
            state.snippetPicker = picker
            return []
        }
        switch Keymap.binding(for: key, in: .snippets)?.command {
        case .snippetClose:
            state.snippetPicker = nil
            state.mode = .browse
            state.notice = Notice("no snippet run")
            return []
        case .snippetDown:
            if picker.chosen == nil { picker.cursor = min(picker.cursor + 1, max(0, picker.matches.count - 1)) }
        case .snippetUp:
            if picker.chosen == nil { picker.cursor = max(0, picker.cursor - 1) }
        case .snippetErase:
            if picker.chosen == nil {
                _ = picker.filter.popLast()
                picker.refilter()
            } else {
                _ = picker.input.popLast()
            }
        case .snippetClear:
            if picker.chosen == nil {
                picker.filter = ""
                picker.refilter()
            } else {
                picker.input = ""
            }
        case .snippetPick:
            return pick(&state, &picker)
        default:
            break
        }
        state.snippetPicker = picker
        return []
    }

    private static func append(_ picker: inout SnippetPicker, _ ch: Character) {
        if picker.chosen == nil {
            guard picker.filter.utf8.count < 256 else { return }
            picker.filter.append(ch)
            picker.refilter()
        } else if picker.input.utf8.count < 4096 {
            picker.input.append(ch)
            picker.problem = nil
        }
    }

    /// Enter: choose the snippet under the cursor, or take the parameter's value (its default when left empty); after
    /// the last one the command goes to the run pane, which runs it as `!` would.
    private static func pick(_ state: inout UIState, _ picker: inout SnippetPicker) -> [Effect] {
        if picker.chosen == nil {
            guard let snippet = picker.selected else {
                state.snippetPicker = picker
                return []
            }
            if let problem = snippet.unusable {
                state.notice = Notice("snippet \(snippet.name) cannot be used: \(problem)", isError: true)
                state.snippetPicker = picker
                return []
            }
            do {
                picker.parameters = try SnippetTemplate(snippet.command).parameters
            } catch {
                state.notice = Notice("snippet \(snippet.name): \(error.description)", isError: true)
                state.snippetPicker = picker
                return []
            }
            picker.chosen = snippet
        } else if let parameter = picker.asking {
            if picker.input.isEmpty, parameter.defaultValue == nil {
                picker.problem = "\(parameter.name) has no default: type a value"
                state.snippetPicker = picker
                return []
            }
            picker.values.append(picker.input.isEmpty ? parameter.defaultValue ?? "" : picker.input)
            picker.input = ""
        }
        guard let snippet = picker.chosen, picker.asking == nil else {
            state.snippetPicker = picker
            return []
        }
        let values = Dictionary(zip(picker.parameters.map(\.name), picker.values)) { first, _ in first }
        let command: String
        do { command = try SnippetTemplate(snippet.command).filled(values) } catch {
            picker.problem = error.description
            picker.values.removeLast()
            state.snippetPicker = picker
            return []
        }
        state.snippetPicker = nil
        return FleetPaneReducer.run(&state, command: command)
    }
}
