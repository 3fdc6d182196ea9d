// TypedOptions: a command's options declared once, as the stored properties of its options struct — `Flag`,
// `Option<Value>`, `Repeated<Value>` — from which the table row (--help, the man page, the completions) is built
// and through which `Call` hands the command each value parsed to its type: a misspelt or undeclared option is a
// key path that does not compile.
import FoundationEssentials
import ShelfCore
import ShelfServices

/// One declared option: its row in the table, and how its text becomes a value.
protocol OptionDeclaration: Sendable {
    var spec: OptionSpec { get }
    /// The value of one occurrence; a bad value throws the one error `ValueKind` words.
    func parsedValue(_ text: String) throws(ShelfError) -> any Sendable
}

/// A command's options: a struct whose stored properties are its options (and groups of options shared between
/// commands, themselves `CommandOptions`), in the order --help lists them.
protocol CommandOptions: Sendable {
    init()
}

extension CommandOptions {
    /// Every option declared, groups flattened, in declaration order.
    static var declared: [any OptionDeclaration] { Self().declarations }

    var declarations: [any OptionDeclaration] {
        Mirror(reflecting: self).children.flatMap { child -> [any OptionDeclaration] in
            if let option = child.value as? any OptionDeclaration { return [option] }
            if let group = child.value as? any CommandOptions { return group.declarations }
            return []
        }
    }
}

/// A command that takes no option.
struct NoOptions: CommandOptions {}

/// `--name`, present or not.
struct Flag: OptionDeclaration {
    let spec: OptionSpec

    init(_ name: String, short: Character? = nil, _ help: String) {
        spec = .flag(name, short: short, help)
    }

    func parsedValue(_ text: String) throws(ShelfError) -> any Sendable { true }
}

/// `--name VALUE`, given at most once.
struct Option<Value: Sendable>: OptionDeclaration {
    let spec: OptionSpec
    let kind: ValueKind<Value>

    init(
        _ name: String, short: Character? = nil, _ kind: ValueKind<Value>, placeholder: String? = nil,
        completion: OptionSpec.Completion? = nil, _ help: String
    ) {
        self.kind = kind
        spec = .value(
            name, placeholder ?? kind.placeholder, short: short, completion: completion ?? kind.completion, help)
    }

    func parsedValue(_ text: String) throws(ShelfError) -> any Sendable { try kind.parse(text, option: spec.name) }
}

/// `--name VALUE`, as many times as given: declared as `Option` is, its row marked repeatable.
struct Repeated<Value: Sendable>: OptionDeclaration {
    private let one: Option<Value>

    init(
        _ name: String, short: Character? = nil, _ kind: ValueKind<Value>, placeholder: String? = nil,
        completion: OptionSpec.Completion? = nil, _ help: String
    ) {
        one = Option(name, short: short, kind, placeholder: placeholder, completion: completion, help)
    }

    var spec: OptionSpec {
        var spec = one.spec
        spec.repeatable = true
        return spec
    }

    func parsedValue(_ text: String) throws(ShelfError) -> any Sendable { try one.parsedValue(text) }
}

/// A parsed command line, as the command's options struct `O` declares it: `call[\.port]` is the port as an `Int`
/// (nil when not given), `call[\.json]` whether the flag was given, `call[\.tag]` every `--tag` in order.
struct Call<O: CommandOptions>: Sendable {
    let invocation: Invocation
    private let options = O()
    private let parsed: [String: [any Sendable]]

    /// Parses every value given, in the command's declaration order: the first bad one is the error.
    init(_ invocation: Invocation) throws(ShelfError) {
        self.invocation = invocation
        var parsed: [String: [any Sendable]] = [:]
        for option in O.declared {
            let name = option.spec.name
            if option.spec.value == nil {
                if invocation.flags.contains(name) { parsed[name] = [true] }
                continue
            }
            for text in invocation.values[name] ?? [] { parsed[name, default: []].append(try option.parsedValue(text)) }
        }
        self.parsed = parsed
    }

    subscript(_ key: KeyPath<O, Flag>) -> Bool { parsed[options[keyPath: key].spec.name] != nil }

    subscript<Value>(_ key: KeyPath<O, Option<Value>>) -> Value? {
        parsed[options[keyPath: key].spec.name]?.last as? Value
    }

    subscript<Value>(_ key: KeyPath<O, Repeated<Value>>) -> [Value] {
        (parsed[options[keyPath: key].spec.name] ?? []).compactMap { $0 as? Value }
    }

    /// The option as the table has it (its name, for a message that names it).
    func spec(_ key: KeyPath<O, some OptionDeclaration>) -> OptionSpec { options[keyPath: key].spec }

    /// `--id ID`, which the table gives every command that takes a host's name (`CommandSpec.withHostID`).
    var hostID: String? { invocation.values[CommandSpec.hostIDOption.name]?.last }

    var command: CommandSpec { invocation.command }
    var arguments: [String] { invocation.arguments }
    var separator: Int? { invocation.separator }
    func argument(_ index: Int) -> String? { invocation.argument(index) }
}

extension CommandSpec {
    /// A row whose options are `O`'s declarations and whose `run` gets them parsed: the table and the look-ups come
    /// from one place.
    init<O: CommandOptions>(
        path: [String], summary: String, details: String = "", arguments: [ArgumentSpec] = [], options: O.Type,
        examples: [String] = [], extraArguments: (@Sendable ([String]) -> String)? = nil,
        run: @escaping @Sendable (Call<O>, AppContext) throws -> Int32
    ) {
        self.init(
            path: path, summary: summary, details: details, arguments: arguments, examples: examples,
            extraArguments: extraArguments, run: { invocation, context in try run(try Call<O>(invocation), context) },
            optionsType: O.self)
    }
}

/// `--json`, as most listing commands take it.
struct JSONOptions: CommandOptions {
    let json = Flag("json", "print JSON for scripts")
}
