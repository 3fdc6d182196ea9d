// TypedOptionsTests: each command's options come from one declaration (its options struct) that feeds both the table
// (--help, the man page, the completions) and the typed look-ups; every declared option is reachable through the
// parser, and a bad value is refused by its kind with the same words whatever the command.
import Foundation
@testable import ShelfCLI
import ShelfCore
import TestSupport
import XCTest

final class TypedOptionsTests: XCTestCase {
    /// The words the table's command takes, with a stand-in for each required argument.
    static func words(_ command: CommandSpec) -> [String] {
        command.path + command.arguments.filter { !$0.optional }.map { _ in "x" }
    }

    func testEveryDeclaredOptionIsInTheTableAndReachesTheCommand() throws {
        var typed = 0
        for command in Commands.table {
            let names = command.options.map(\.name) + [ArgumentParser.globalHelp.name]
            XCTAssertEqual(Set(names).count, names.count, "\(command.name): an option declared twice")
            let shorts = (command.options + [ArgumentParser.globalHelp]).compactMap(\.short)
            XCTAssertEqual(Set(shorts).count, shorts.count, "\(command.name): a short letter used twice")
            guard let type = command.optionsType else {
                // A row without an options struct takes none (but the --id the table gives it).
                XCTAssertEqual(
                    command.options.map(\.name).filter { $0 != CommandSpec.hostIDOption.name }, [],
                    "\(command.name): options listed by hand, not declared")
                continue
            }
            typed += 1
            let declared = type.declared.map(\.spec)
            // The row lists exactly the declarations, in their order (plus --id, which the table adds).
            let added = command.takesHostName && !declared.contains { $0.name == CommandSpec.hostIDOption.name }
            XCTAssertEqual(
                command.options.map(\.name), declared.map(\.name) + (added ? [CommandSpec.hostIDOption.name] : []),
                command.name)
            for option in declared {
                let row = try XCTUnwrap(command.options.first { $0.name == option.name })
                XCTAssertEqual(row.help, option.help, "\(command.name) --\(option.name)")
                XCTAssertEqual(row.value, option.value, "\(command.name) --\(option.name)")
                XCTAssertEqual(row.short, option.short, "\(command.name) --\(option.name)")
                // Through the parser, to the name the typed look-up reads.
                let given = option.value == nil ? ["--\(option.name)"] : ["--\(option.name)", "1"]
                guard
                    case .run(let invocation) = try ArgumentParser.parse(
                        Self.words(command) + given, table: Commands.table)
                else { return XCTFail("\(command.name) --\(option.name) did not parse to a run") }
                XCTAssertEqual(invocation.command.name, command.name)
                if option.value == nil {
                    XCTAssertTrue(invocation.flags.contains(option.name), "\(command.name) --\(option.name)")
                } else {
                    XCTAssertEqual(invocation.values[option.name], ["1"], "\(command.name) --\(option.name)")
                }
            }
        }
        XCTAssertGreaterThan(typed, 70)
    }

    func testValuesArriveParsedToTheirTypes() throws {
        func call<O: CommandOptions>(_ words: [String], _: O.Type) throws -> Call<O> {
            guard case .run(let invocation) = try ArgumentParser.parse(words, table: Commands.table) else {
                throw ShelfError(.usage, "\(words) did not parse to a run")
            }
            return try Call<O>(invocation)
        }
        let add = try call(
            ["add", "web", "--host", "h", "-p", "2222", "--pq", "require", "--record", "group", "-t", "a", "-t", "b"],
            HostCommands.AddOptions.self)
        XCTAssertEqual(add[\.fields.port], 2222)
        XCTAssertEqual(add[\.fields.pq], .require)
        XCTAssertNil(add[\.fields.record]?.setting)
        XCTAssertNotNil(add[\.fields.record])
        XCTAssertEqual(add[\.fields.tag], ["a", "b"])
        XCTAssertNil(add[\.fields.user])
        XCTAssertFalse(add[\.allowDuplicate])
        // Open enums read as a user types them: case, - and _ do not matter.
        let auth = try call(
            ["add", "web", "--host", "h", "--auth", "Keyboard-Interactive", "--pq", "REQUIRE"],
            HostCommands.AddOptions.self)
        XCTAssertEqual(auth[\.fields.auth], .keyboardInteractive)
        XCTAssertEqual(auth[\.fields.pq], .require)
        let sign = try call(["ca", "sign", "work", "--valid", "90m"], CACommands.SignOptions.self)
        XCTAssertEqual(sign[\.valid], 5400)
        let rotate = try call(
            ["sessions", "rotate", "--keep", "2w", "--max-size", "1G"], SessionCommands.RotateOptions.self)
        XCTAssertEqual(rotate[\.keep], 14 * 86_400)
        XCTAssertEqual(rotate[\.maxSize], 1 << 30)
    }

    /// A bad value gets one error, worded by its kind: what is wrong and what to give.
    func testABadValueIsRefusedInTheWordsOfItsKind() throws {
        let home = TempHome()
        let cases: [([String], String)] = [
            (
                ["add", "x", "--host", "h", "--port", "70000"],
                "sshelf: error: --port: '70000' is not a port (1-65535)\nsshelf: hint: e.g. --port 22 or 2222\n"
            ),
            (
                ["ca", "sign", "work", "--ca", "team", "--principals", "deploy", "--valid", "8x"],
                "sshelf: error: --valid: '8x' is not a duration between 1m and 366d\n"
                    + "sshelf: hint: e.g. --valid 30m, 8h or 7d\n"
            ),
            (
                ["edit", "x", "--record", "maybe"],
                "sshelf: error: --record: unknown value 'maybe'\nsshelf: hint: one of: off, on, ask, or group (as its "
                    + "group)\n"
            ),
            (
                ["group", "edit", "prod", "--pq", "maybe"],
                "sshelf: error: --pq: unknown value 'maybe'\nsshelf: hint: --pq require (sessions only through "
                    + "OpenSSH, post-quantum key exchange) or --pq off\n"
            ),
            (
                ["add", "x", "--host", "h", "--auth", "magic"],
                "sshelf: error: --auth: unknown method 'magic'\nsshelf: hint: one of: "
                    + AuthMethod.knownCases.map(\.rawValue).joined(separator: ", ") + "\n"
            ),
            (
                ["sessions", "rotate", "--keep", "soon"],
                "sshelf: error: --keep: 'soon' is not an age\nsshelf: hint: e.g. --keep 12h, 30d or 8w\n"
            ),
            (
                ["log", "--since", "yesterday"],
                "sshelf: error: --since: 'yesterday' is not a date or a span\n"
                    + "sshelf: hint: e.g. --since 2025-01-31, 2025-01-31T08:00 or 12h\n"
            ),
            (
                ["vault", "unlock", "--passphrase-fd", "99"],
                "sshelf: error: --passphrase-fd: '99' is not an open file descriptor\n"
                    + "sshelf: hint: e.g. --passphrase-fd 3 with 3<file in the shell\n"
            ),
            (
                ["identity", "edit", "x", "--lifetime", "-1"],
                "sshelf: error: --lifetime: '-1' is not a number of seconds (0-\(Validation.maximumAgentLifetime))\n"
                    + "sshelf: hint: e.g. --lifetime 60\n"
            ),
        ]
        for (arguments, expected) in cases {
            let result = try home.run(arguments)
            XCTAssertEqual(result.status, 4, "\(arguments): \(result)")
            XCTAssertEqual(result.stderr, expected, "\(arguments)")
        }
    }
}
