// SnippetCommands: `sshelf snippet add|list|show|edit|rm|run` — saved commands with parameters (docs/SESSIONS.md).
// A snippet run on one host goes as `exec` does; on a group, a tag, a search or several hosts through `run` and its
// guard rails (canary, typed confirmation, the release log).
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfServices
import ShelfStore

enum SnippetCommands {
    static let nameArgument = ArgumentSpec(name: "NAME", help: "snippet name (or id prefix)")

    static let commands: [CommandSpec] = [
        CommandSpec(
            path: ["snippet", "add"], summary: "save a command, with parameters, to run on hosts later",
            details: """
                Everything after -- is the command (quote it once, as you would for ssh). A parameter is written \
                {{name}} or {{name:default}}; `snippet run` fills it from --param name=VALUE, else its default, and \
                the TUI asks for each. \\{{ stands for two literal braces (docker's --format '\\{{.Names}}'). Values \
                go into the command as typed (it is your own shell text), without control characters. Snippets \
                sync as config: inside sealed entries, so the sync remote never reads them. See docs/SESSIONS.md.
                """,
            arguments: [
                ArgumentSpec(name: "NAME", help: "a name for it: letters, digits, '-', '_' and '.'"),
                ArgumentSpec(name: "CMD", help: "the command (after --)", variadic: true),
            ],
            options: AddOptions.self,
            examples: [
                "sshelf snippet add restart -- 'sudo systemctl restart {{unit:nginx}}'",
                "sshelf snippet add logs --tag debug -- 'journalctl -u {{unit}} -n {{lines:100}} --no-pager'",
            ], run: add),
        CommandSpec(
            path: ["snippet", "list"], summary: "list saved snippets with their parameters",
            options: ListOptions.self, run: list),
        CommandSpec(
            path: ["snippet", "show"], summary: "print a snippet: its command, parameters and tags",
            arguments: [nameArgument], run: show),
        CommandSpec(
            path: ["snippet", "edit"], summary: "change a snippet's command, name or tags",
            details: "A new command goes after --; what is not given stays as it is.",
            arguments: [
                nameArgument,
                ArgumentSpec(name: "CMD", help: "the new command (after --)", optional: true, variadic: true),
            ],
            options: EditOptions.self,
            examples: ["sshelf snippet edit restart -- 'sudo systemctl restart {{unit:nginx}} && echo done'"],
            run: edit),
        CommandSpec(
            path: ["snippet", "rm"], summary: "remove a snippet (on every device, once synced)",
            arguments: [nameArgument], run: remove),
        CommandSpec(
            path: ["snippet", "run"], summary: "run a snippet on a host, or on many through run's guard rails",
            details: """
                The snippet's parameters are filled from --param NAME=VALUE, else their defaults; one with neither \
                is refused before anything connects. On one host (a name, NAME@ID or id:PREFIX) it runs as `sshelf \
                exec` does: output as it comes, the command's exit status. On a group, a tag, a search or several \
                targets — or with any of run's own options (--canary, --yes, --parallel, --json, --stream, \
                --dry-run…) — it is `sshelf run TARGETS -- COMMAND`: the typed confirmation for large or protected \
                runs, the canary, the release-log entry, the report. See docs/FLEET.md and docs/SESSIONS.md.
                """,
            arguments: [
                nameArgument,
                ArgumentSpec(
                    name: "TARGETS", help: "a host, or hosts, @group, tag:NAME or a quoted search", variadic: true,
                    completion: .host),
            ],
            options: RunOptions.self,
            examples: [
                "sshelf snippet run restart web1 --param unit=postgresql",
                "sshelf snippet run restart @prod --canary 1",
            ], run: run),
    ]

    struct AddOptions: CommandOptions { let tag = Repeated("tag", .text("TAG"), "a tag for it (repeatable)") }

    struct ListOptions: CommandOptions {
        let tag = Option("tag", .text("TAG"), "only the snippets with this tag")
        let json = Flag("json", "print JSON for scripts (parameters with their defaults included)")
        let names = Flag("names", "print only the names, one per line")
    }

    struct EditOptions: CommandOptions {
        let name = Option("name", .text("NEWNAME"), "give the snippet a new name")
        let tag = Repeated("tag", .text("TAG"), "add a tag (repeatable)")
        let untag = Repeated("untag", .text("TAG"), "remove a tag (repeatable)")
    }

    /// `--param` and every option of `run`, which a snippet run on several hosts goes through.
    struct RunOptions: CommandOptions {
        let param = Repeated("param", .text("NAME=VALUE"), "a parameter's value (repeatable)")
        let run = RunCommand.Options()
    }

    static func add(_ call: Call<AddOptions>, _ context: AppContext) throws -> Int32 {
        let command = call.arguments.dropFirst().joined(separator: " ")
        guard !command.isEmpty else {
            throw ShelfError(
                .usage, "snippet add: missing the command", hint: "sshelf snippet add NAME -- 'COMMAND {{param}}'")
        }
        let snippet = Snippet(name: call.arguments[0], command: command, tags: call[\.tag])
        try SnippetOperations.save(snippet, in: try context.store())
        context.print("saved snippet '\(Display.safe(snippet.name))'" + parameterSummary(snippet))
        return 0
    }

    static func list(_ call: Call<ListOptions>, _ context: AppContext) throws -> Int32 {
        var snippets = try context.store().snippets()
        if let tag = call[\.tag] { snippets = snippets.filter { $0.tags.contains(tag) } }
        if call[\.json] {
            context.print(try JSONOutput.encode(snippets.map(SnippetJSON.init)))
            return 0
        }
        if call[\.names] {
            context.output(snippets.map { Display.safe($0.name) + "\n" }.joined())
            return 0
        }
        if snippets.isEmpty {
            context.errorOutput("no snippets yet; save one: sshelf snippet add NAME -- 'COMMAND {{param}}'\n")
            return 0
        }
        let rows = snippets.map { snippet in
            [
                snippet.name, parameterList(snippet), snippet.tags.joined(separator: ","),
                oneLine(snippet.command, limit: 60),
            ]
        }
        context.output(Display.table(["NAME", "PARAMETERS", "TAGS", "COMMAND"], rows))
        return 0
    }

    static func show(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let snippet = try SnippetOperations.find(call.arguments[0], in: try context.store())
        var lines = ["name:       \(Display.safe(snippet.name))", "id:         \(Display.shortID(snippet.id))"]
        if !snippet.tags.isEmpty { lines.append("tags:       \(Display.safe(snippet.tags.joined(separator: ", ")))") }
        let parameters = (try? SnippetTemplate(snippet.command).parameters) ?? []
        for parameter in parameters {
            lines.append(
                "parameter:  \(parameter.name)"
                    + (parameter.defaultValue.map { " (default: \(Display.safe($0)))" } ?? " (no default)"))
        }
        lines.append("command:")
        lines += snippet.command.split(separator: "\n", omittingEmptySubsequences: false).map {
            "  " + Display.safe(String($0))
        }
        context.print(lines.joined(separator: "\n"))
        return 0
    }

    static func edit(_ call: Call<EditOptions>, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        var snippet = try SnippetOperations.find(call.arguments[0], in: store)
        let command = call.arguments.dropFirst().joined(separator: " ")
        let untag = Set(call[\.untag])
        guard !command.isEmpty || call[\.name] != nil || !call[\.tag].isEmpty || !untag.isEmpty else {
            throw ShelfError(
                .usage, "snippet edit: nothing to change",
                hint: "give a new command after --, or --name, --tag, --untag")
        }
        if !command.isEmpty { snippet.command = command }
        if let name = call[\.name] { snippet.name = name }
        snippet.tags = snippet.tags.filter { !untag.contains($0) } + call[\.tag]
        try SnippetOperations.save(snippet, in: store)
        context.print("saved snippet '\(Display.safe(snippet.name))'" + parameterSummary(snippet))
        return 0
    }

    static func remove(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        let snippet = try SnippetOperations.find(call.arguments[0], in: store)
        try SnippetOperations.delete(snippet, in: store)
        context.print("removed snippet '\(Display.safe(snippet.name))'")
        return 0
    }

    static func run(_ call: Call<RunOptions>, _ context: AppContext) throws -> Int32 {
        let targets = Array(call.arguments.dropFirst())
        guard !targets.isEmpty || call[\.run.hostsFile] != nil else {
            throw ShelfError(
                .usage, "snippet run: name the host (or hosts) to run it on",
                hint: "sshelf snippet run \(ShellWord.quote(call.arguments[0])) HOST")
        }
        let snippet = try SnippetOperations.find(call.arguments[0], in: try context.store())
        let command = try SnippetOperations.command(snippet, values: try SnippetOperations.values(call[\.param]))
        // One host and nothing only run knows: exec's way (output as it comes, the command's own exit status).
        let given = call.invocation
        let fleetOnly = Set(given.values.keys).union(given.flags).subtracting(execOptions)
            .subtracting([call.spec(\.param).name])
        if targets.count == 1, TargetWord(targets[0]).isOneHost, fleetOnly.isEmpty {
            var exec = Invocation(command: call.command, arguments: [targets[0], command])
            exec.values = given.values.filter { execOptions.contains($0.key) }
            exec.flags = given.flags.filter { execOptions.contains($0) }
            return try SSHCommands.exec(try Call(exec), context)
        }
        return try RunCommand.run(command, on: targets, try Call(given), context)
    }

    /// The options of `exec` that `snippet run` takes too (the login's, --tty): with only these (and --param), one
    /// host runs as exec does.
    static let execOptions = Set(SSHCommands.ExecCommandOptions.declared.map(\.spec.name))
        .intersection(RunCommand.Options.declared.map(\.spec.name))

    /// A snippet as `snippet list --json` prints it: its parameters read out of the command.
    struct SnippetJSON: Encodable {
        struct Parameter: Encodable {
            var name: String
            var `default`: String?
        }
        var id: String
        var name: String
        var command: String
        var tags: [String]
        var parameters: [Parameter]

        init(_ snippet: Snippet) {
            id = snippet.id.uuidString.lowercased()
            name = snippet.name
            command = snippet.command
            tags = snippet.tags
            parameters = ((try? SnippetTemplate(snippet.command).parameters) ?? []).map {
                Parameter(name: $0.name, default: $0.defaultValue)
            }
        }
    }

    static func parameterList(_ snippet: Snippet) -> String {
        ((try? SnippetTemplate(snippet.command).parameters) ?? []).map {
            $0.name + ($0.defaultValue.map { "=" + $0 } ?? "")
        }.joined(separator: " ")
    }

    static func parameterSummary(_ snippet: Snippet) -> String {
        let list = parameterList(snippet)
        return list.isEmpty ? "" : " (parameters: \(Display.safe(list)))"
    }

    static func oneLine(_ text: String, limit: Int) -> String {
        let flat = text.split(separator: "\n").joined(separator: " ⏎ ")
        return flat.count > limit ? String(flat.prefix(limit - 1)) + "…" : flat
    }
}
