// ArgumentParser: matches argv against the command table — longest command path first, then
// `--name value`, `--name=value`, `-x value`, bundled short flags, and `--` to end options.
import FoundationEssentials
import ShelfCore
import ShelfOperations

enum ParseOutcome {
    case run(Invocation)
    case help(String)
    case version
}

enum ArgumentParser {
    static let globalHelp = OptionSpec.flag("help", short: "h", "show help for this command")

    static func parse(_ argv: [String], table: [CommandSpec]) throws(ShelfError) -> ParseOutcome {
        var words = argv[...]
        if words.isEmpty { return .help(HelpText.overview(table)) }
        if words.first == "--version" || words.first == "-V" { return .version }
        if words.first == "--help" || words.first == "-h" || words.first == "help" {
            let rest = Array(words.dropFirst()).filter { !$0.hasPrefix("-") }
            if rest.isEmpty { return .help(HelpText.overview(table)) }
            guard let command = match(rest[...], table: table)?.command else {
                let children = table.filter { $0.path.starts(with: rest) }
                if !children.isEmpty { return .help(HelpText.group(rest, children)) }
                throw unknownCommand(rest, table: table)
            }
            return .help(HelpText.command(command))
        }
        guard let (command, consumed) = match(words, table: table) else {
            // A command group without its subcommand (`sshelf group`) shows the group's help.
            let prefix = words.prefix(while: { !$0.hasPrefix("-") })
            let children = table.filter { $0.path.starts(with: Array(prefix)) && !prefix.isEmpty }
            if !children.isEmpty
                && (words.count == prefix.count || words.dropFirst(prefix.count).allSatisfy(isHelpFlag))
            {
                return .help(HelpText.group(Array(prefix), children))
            }
            throw unknownCommand(Array(prefix), table: table)
        }
        words = words.dropFirst(consumed)
        var invocation = Invocation(command: command)
        let options = command.options
        var optionsEnded = false
        while let word = words.popFirst() {
            if optionsEnded || word == "-" || !word.hasPrefix("-") {
                invocation.arguments.append(word)
                continue
            }
            if word == "--" {
                optionsEnded = true
                invocation.separator = invocation.separator ?? invocation.arguments.count
                continue
            }
            if isHelpFlag(word) { return .help(HelpText.command(command)) }
            if word.hasPrefix("--") {
                var name = String(word.dropFirst(2))
                var inline: String? = nil
                if let eq = name.firstIndex(of: "=") {
                    inline = String(name[name.index(after: eq)...])
                    name = String(name[..<eq])
                }
                guard let option = options.first(where: { $0.name == name }) else {
                    throw unknownOption("--\(name)", command: command)
                }
                try take(option, spelled: "--\(name)", inline: inline, from: &words, into: &invocation)
            } else {
                // -p 22, -p22, or bundled flags -fv
                var letters = Array(word.dropFirst())
                while !letters.isEmpty {
                    let letter = letters.removeFirst()
                    guard let option = options.first(where: { $0.short == letter }) else {
                        throw unknownOption("-\(letter)", command: command)
                    }
                    if option.value != nil {
                        let inline = letters.isEmpty ? nil : String(letters)
                        letters = []
                        try take(option, spelled: "-\(letter)", inline: inline, from: &words, into: &invocation)
                    } else {
                        try take(option, spelled: "-\(letter)", inline: nil, from: &words, into: &invocation)
                    }
                }
            }
        }
        // `--id ID` stands for the NAME argument: "id:ID" is the host with that id, whatever its name.
        if let id = invocation.values[CommandSpec.hostIDOption.name]?.last, command.takesHostName {
            invocation.arguments.insert(TargetWord.id(id), at: 0)
        }
        try checkArguments(invocation)
        return .run(invocation)
    }

    static func isHelpFlag(_ word: String) -> Bool { word == "--help" || word == "-h" }

    /// The command whose path is the longest prefix of `words`.
    static func match(_ words: ArraySlice<String>, table: [CommandSpec]) -> (command: CommandSpec, consumed: Int)? {
        table.filter { words.starts(with: $0.path) }.max(by: { $0.path.count < $1.path.count })
            .map { ($0, $0.path.count) }
    }

    private static func take(
        _ option: OptionSpec, spelled: String, inline: String?, from words: inout ArraySlice<String>,
        into invocation: inout Invocation
    ) throws(ShelfError) {
        guard option.value != nil else {
            if inline != nil {
                throw ShelfError(.usage, "\(spelled) takes no value", hint: usageHint(invocation.command))
            }
            invocation.flags.insert(option.name)
            return
        }
        guard let value = inline ?? words.popFirst() else {
            throw ShelfError(.usage, "\(spelled) needs a value (\(option.value!))", hint: usageHint(invocation.command))
        }
        if !option.repeatable, invocation.values[option.name] != nil {
            throw ShelfError(.usage, "\(spelled) given twice", hint: usageHint(invocation.command))
        }
        invocation.values[option.name, default: []].append(value)
    }

    private static func checkArguments(_ invocation: Invocation) throws(ShelfError) {
        let specs = invocation.command.arguments
        let required = specs.filter { !$0.optional }.count
        let variadic = specs.contains { $0.variadic }
        if invocation.arguments.count < required {
            let missing = specs.filter { !$0.optional }[invocation.arguments.count].name
            throw ShelfError(
                .usage, "\(invocation.command.name): missing \(missing)", hint: usageHint(invocation.command))
        }
        if !variadic && invocation.arguments.count > specs.count {
            let extra = invocation.arguments[specs.count]
            throw ShelfError(
                .usage, "\(invocation.command.name): unexpected argument '\(Display.safe(extra))'",
                hint: invocation.command.extraArguments?(invocation.arguments) ?? optionFor(
                    extra, command: invocation.command)
                    ?? usageHint(invocation.command))
        }
    }

    /// A word given where no argument goes, that reads as the value of one of the command's options — a URL for the
    /// one taking a URL, a path for the one taking a PATH or FILE (`sync enable ~/Sync` means `--folder ~/Sync`):
    /// that option, written out, as the hint. Nil when none or several could take it.
    private static func optionFor(_ word: String, command: CommandSpec) -> String? {
        let isURL = word.contains("://") || (word.contains("@") && word.contains(":"))
        let isPath = !isURL && (word.contains("/") || word.hasPrefix("~") || word.hasPrefix("."))
        let takers = command.options.filter { option in
            guard let placeholder = option.value else { return false }
            return isURL ? placeholder == "URL" : isPath && (placeholder == "PATH" || placeholder == "FILE")
        }
        guard takers.count == 1, let option = takers.first else { return nil }
        return "did you mean: sshelf \(command.name) --\(option.name) \(ShellWord.quote(Display.safe(word)))"
    }

    static func usageHint(_ command: CommandSpec) -> String {
        "usage: \(command.usage) (see sshelf \(command.name) --help)"
    }

    private static func unknownOption(_ spelled: String, command: CommandSpec) -> ShelfError {
        var hint = usageHint(command)
        if spelled.hasPrefix("--") {
            let names = (command.options + [globalHelp]).map(\.name)
            let close = Suggestions.closest(to: String(spelled.dropFirst(2)), among: names).map { "--\($0)" }
            if let phrase = Suggestions.phrase(close) { hint = "\(phrase) (see sshelf \(command.name) --help)" }
        }
        return ShelfError(.usage, "\(command.name): unknown option \(Display.safe(spelled))", hint: hint)
    }

    /// A command that is not in the table: the closest commands are suggested, among the subcommands when the
    /// first word names a command group (`sshelf forward strt`), else among all first words (`sshelf lst`).
    private static func unknownCommand(_ words: [String], table: [CommandSpec]) -> ShelfError {
        let first = words.first ?? ""
        let subcommands = table.filter { $0.path.count > 1 && $0.path[0] == first }.map { $0.path[1] }
        if words.count >= 2, !subcommands.isEmpty {
            let close = Suggestions.closest(to: words[1], among: subcommands).map { "'sshelf \(first) \($0)'" }
            return ShelfError(
                .usage, "unknown command 'sshelf \(Display.safe(first)) \(Display.safe(words[1]))'",
                hint: Suggestions.phrase(close) ?? "run 'sshelf \(first) --help' for its commands")
        }
        let close = Suggestions.closest(to: first, among: table.map { $0.path[0] }).map { "'sshelf \($0)'" }
        return ShelfError(
            .usage, "unknown command '\(Display.safe(first))'",
            hint: Suggestions.phrase(close) ?? "run 'sshelf --help' for the list of commands")
    }
}
