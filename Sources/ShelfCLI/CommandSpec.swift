// CommandSpec: the command table's row types. Parsing, --help, the man page and the shell completions are
// all generated from these rows, so they cannot drift apart.
import FoundationEssentials
import ShelfServices

struct OptionSpec: Sendable {
    /// Long name without dashes (`port` for `--port`).
    var name: String
    var short: Character? = nil
    /// Placeholder for the value (`PORT`); nil for a flag that takes none.
    var value: String? = nil
    var repeatable = false
    var help: String
    /// What the shell completes the value with: a file, a host name, a group path, or a fixed list.
    var completion: Completion = .none

    enum Completion: Sendable, Equatable { case none, file, host, group, identity, words([String]) }

    static func flag(_ name: String, short: Character? = nil, _ help: String) -> OptionSpec {
        OptionSpec(name: name, short: short, value: nil, help: help)
    }

    static func value(
        _ name: String, _ placeholder: String, short: Character? = nil, repeatable: Bool = false,
        completion: Completion = .none, _ help: String
    ) -> OptionSpec {
        OptionSpec(
            name: name, short: short, value: placeholder, repeatable: repeatable, help: help, completion: completion)
    }
}

struct ArgumentSpec: Sendable {
    var name: String
    var help: String
    var optional = false
    var variadic = false
    var completion: OptionSpec.Completion = .none

    var usage: String {
        let core = variadic ? "\(name)..." : name
        return optional ? "[\(core)]" : core
    }
}

struct CommandSpec: Sendable {
    /// Words after `sshelf` (`["group", "add"]`).
    var path: [String]
    var summary: String
    var details: String = ""
    var arguments: [ArgumentSpec] = []
    var examples: [String] = []
    /// What to say when more words are given than the command takes (nil: the usage): `connect HOST CMD` is
    /// `exec HOST -- CMD` for someone used to `ssh HOST CMD`.
    var extraArguments: (@Sendable ([String]) -> String)? = nil
    var run: @Sendable (Invocation, AppContext) throws -> Int32
    /// The struct that declares the options (TypedOptions); nil: the command takes none.
    var optionsType: (any CommandOptions.Type)? = nil
    /// Whether the table gave the row `--id` (`withHostID`).
    var addsHostID = false

    /// The options as --help, the man page, the completions and the parser see them: the declared ones, read when
    /// asked (a process reads its own command's, not the whole table's), then `--id` when the table added it.
    var options: [OptionSpec] {
        let declared = optionsType?.declared.map(\.spec) ?? []
        guard addsHostID, !declared.contains(where: { $0.name == Self.hostIDOption.name }) else { return declared }
        return declared + [Self.hostIDOption]
    }

    var name: String { path.joined(separator: " ") }

    /// Whether the command's first argument is a host's name (one, or the first of several: `mv`, `rm`): such a
    /// command also takes `--id ID` in its place.
    var takesHostName: Bool {
        guard let first = arguments.first else { return false }
        return first.completion == .host && !first.optional
    }

    /// `--id ID`: the host by its id (prefix) instead of NAME — for hosts that share a name.
    static let hostIDOption = hostID.spec

    /// `--id ID` for a command that declares it itself (`trust`, whose NAME is optional).
    static let hostID = Option(
        "id", .text("ID"),
        "name the host by its id (4 or more hex digits, as 'sshelf list --json' or an error lists them) "
            + "instead of by name")

    /// The row as the table keeps it: a command that takes one host's name gets `--id` as well.
    var withHostID: CommandSpec {
        var spec = self
        spec.addsHostID = takesHostName
        return spec
    }

    var usage: String {
        var parts = ["sshelf"] + path
        if !options.isEmpty { parts.append("[OPTIONS]") }
        parts += arguments.map(\.usage)
        return parts.joined(separator: " ")
    }
}

/// What the parser understood of one command line.
struct Invocation: Sendable {
    var command: CommandSpec
    var arguments: [String] = []
    var values: [String: [String]] = [:]
    var flags: Set<String> = []
    /// How many arguments came before `--` (nil: there was none), for commands that take words on both sides.
    var separator: Int? = nil

    // Options are read through `Call` (TypedOptions), by the keys the command declares: never by name here.
    func argument(_ index: Int) -> String? { index < arguments.count ? arguments[index] : nil }
}
