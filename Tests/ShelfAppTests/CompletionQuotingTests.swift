// CompletionQuotingTests: the generated completions, loaded into real bash, zsh and fish in tmux, complete host names
// with a space, a quote, a `$` or a `:` into one correctly quoted shell word, keep NAME@ID whole, and the completed
// command line, run as it stands, finds the host.
import Foundation
import TestSupport
import XCTest

final class CompletionQuotingTests: XCTestCase {
    struct Case {
        var typed: String
        var completed: String
        /// The host `show` then prints (nil: the line is not run).
        var shows: String?
    }

    /// The home, one of the two hosts named `lab` as NAME@ID, and the shortest prefix of it the other one does not
    /// share (the ids are random: two of them can begin with the same digits).
    func makeHome() throws -> (TempHome, lab: Lab) {
        let home = TempHome()
        for (name, address) in [
            ("my host", "a.example"), ("o'neil", "b.example"), ("dollar$x", "c.example"),
            ("db:1", "d.example"), ("lab", "e.example"),
        ] {
            XCTAssertExit(try home.run("add", name, "--host", address), 0)
        }
        XCTAssertExit(try home.run("add", "lab", "--host", "f.example", "--allow-duplicate"), 0)
        XCTAssertExit(try home.run("group", "add", "prod/eu west"), 0)
        let names = try home.run("list", "--names").stdout.split(separator: "\n").map(String.init)
        let labs = names.filter { $0.hasPrefix("lab@") }
        XCTAssertEqual(labs.count, 2, "\(names)")
        let (lab, other) = (try XCTUnwrap(labs.first), try XCTUnwrap(labs.last))
        let shared = zip(lab, other).prefix { $0 == $1 }.count
        return (home, Lab(name: lab, uniquePrefix: String(lab.prefix(shared + 1))))
    }

    struct Lab {
        var name: String
        var uniquePrefix: String
    }

    /// What each shell should make of the same keystrokes (each followed by Tab).
    func cases(lab: Lab) -> [Case] {
        [
            Case(typed: "sshelf show my", completed: #"sshelf show my\ host "#, shows: "my host"),
            Case(typed: "sshelf show o", completed: #"sshelf show o\'neil "#, shows: "o'neil"),
            Case(typed: "sshelf show do", completed: #"sshelf show dollar\$x "#, shows: "dollar$x"),
            Case(typed: "sshelf show db", completed: "sshelf show db:1 ", shows: "db:1"),
            Case(typed: "sshelf show \(lab.uniquePrefix)", completed: "sshelf show \(lab.name) ", shows: nil),
            Case(
                typed: "sshelf mv db:1 --group prod/eu", completed: #"sshelf mv db:1 --group prod/eu\ west "#,
                shows: nil),
        ]
    }

    func testBashCompletesQuotedNames() throws {
        let (home, lab) = try makeHome()
        let script = try home.write(try home.run("completions", "bash").stdout, to: "sshelf.bash")
        try drive(
            home, shell: TestTool.bash.path, arguments: ["--norc", "--noprofile"],
            setup: "PS1='$ '; source '\(script)'",
            cases: cases(lab: lab) + [
                Case(typed: "sshelf show 'my", completed: "sshelf show 'my host' ", shows: "my host"),
                Case(typed: "sshelf show \"do", completed: #"sshelf show "dollar\$x" "#, shows: "dollar$x"),
            ])
    }

    func testZshCompletesQuotedNames() throws {
        let (home, lab) = try makeHome()
        let directory = home.root + "/zsh-functions"
        _ = try home.write(try home.run("completions", "zsh").stdout, to: "../zsh-functions/_sshelf")
        try drive(
            home, shell: TestTool.zsh.path, arguments: ["-f"],
            setup: "PROMPT='$ '; fpath=('\(directory)' $fpath); autoload -U compinit; compinit -u -D",
            cases: cases(lab: lab))
    }

    func testFishCompletesQuotedNames() throws {
        let (home, lab) = try makeHome()
        let script = try home.write(try home.run("completions", "fish").stdout, to: "sshelf.fish")
        try drive(
            home, shell: TestTool.fish.path, arguments: ["--no-config"], setup: "source '\(script)'",
            cases: cases(lab: lab))
    }

    /// Starts `shell` in tmux with the binary's folder on PATH (as `sshelf`), runs `setup`, then for each case types
    /// it, presses Tab, waits for the completed line, and runs it when it should show a host.
    func drive(_ home: TempHome, shell: String, arguments: [String], setup: String, cases: [Case]) throws {
        XCTAssertTrue(
            FileManager.default.isExecutableFile(atPath: shell), "\(shell) is missing: make test-deps installs it")
        let folder = (CLI.binary as NSString).deletingLastPathComponent
        XCTAssertEqual((CLI.binary as NSString).lastPathComponent, "sshelf", "completions call `sshelf` by name")
        var environment = home.environment
        for (key, value) in ["PATH": "\(folder):/usr/bin:/bin", "HOME": home.home, "TERM": "xterm"] {
            environment[key] = value
        }
        let tmux = try Tmux(home: home, command: [shell] + arguments, environment: environment, columns: 160, rows: 40)
        try tmux.enter(setup)
        try tmux.enter("echo ready")
        try tmux.waitFor("the shell") { $0.contains("\nready") }
        for item in cases {
            try tmux.send("C-u")
            try tmux.send("C-l")
            try tmux.type(item.typed)
            try tmux.send("Tab")
            try tmux.waitFor("'\(item.typed)' to complete to '\(item.completed)' in \(shell)") { screen in
                screen.split(separator: "\n").contains {
                    $0.hasSuffix(item.completed.trimmingCharacters(in: .whitespaces)) || $0.contains(item.completed)
                }
            }
            guard let host = item.shows else { continue }
            try tmux.send("Enter")
            try tmux.waitFor("'\(item.completed)' to show \(host) in \(shell)") { screen in
                screen.contains("name           \(host)")
            }
        }
    }
}
