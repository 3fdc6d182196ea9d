// RunAsPsshTests: what pssh and clush users reach for in `sshelf run`, against real sshd — `-l USER` for the run
// only, `-t` giving each command a terminal, `--sudo` typing a password asked once at sshelf's terminal into the
// prompt of a real sudo (a sudoers entry for the test account that asks for its password) and nowhere else (the
// password searched for in every file, the screen and the process's arguments and environment), and `--stream`
// printing lines as they arrive, prefixed by host, in each host's order, with the statuses at the end.
import Foundation
import TestSupport
import XCTest

final class RunAsPsshTests: XCTestCase {
    /// `-l root` logs every host in as root for this run; the host's own user is unchanged afterwards.
    func testLoginUserForTheRunOnly() throws {
        let world = try FleetWorld(["a", "b"])
        let run = try world.home.run("run", "@prod", "-l", "root", "--json", "--", "id -un")
        XCTAssertExit(run, 0)
        let hosts = try FleetWorld.jsonLines(run.stdout)
        XCTAssertEqual(hosts["a"]?["stdout"] as? String, "root\n", run.stdout)
        XCTAssertEqual(hosts["b"]?["stdout"] as? String, "root\n", run.stdout)
        let again = try world.home.run("run", "a", "--json", "--", "id -un")
        XCTAssertEqual(try FleetWorld.jsonLines(again.stdout)["a"]?["stdout"] as? String, "\(TestAccount.name)\n")
        let dry = try world.home.run("run", "a", "-l", "root", "--dry-run", "--", "true")
        XCTAssertTrue(dry.stdout.contains("root@"), dry.stdout)
        let bad = try world.home.run("run", "a", "-l", "-x", "--", "true")
        XCTAssertExit(bad, 4)
        XCTAssertTrue(bad.stderr.contains("user starts with '-'"), bad.stderr)
    }

    /// `-t`: the command's input is a terminal; without it, it is not.
    func testTerminalForEachCommand() throws {
        let world = try FleetWorld(["a"])
        let command = "if [ -t 0 ]; then echo terminal; else echo none; fi"
        let plain = try world.home.run("run", "a", "--json", "--", command)
        XCTAssertEqual(try FleetWorld.jsonLines(plain.stdout)["a"]?["stdout"] as? String, "none\n", plain.stdout)
        let tty = try world.home.run("run", "a", "-t", "--json", "--", command)
        XCTAssertExit(tty, 0)
        // A terminal ends lines with CR LF.
        XCTAssertEqual(try FleetWorld.jsonLines(tty.stdout)["a"]?["stdout"] as? String, "terminal\r\n", tty.stdout)
    }

    /// `--sudo` at a terminal: the password is asked once (not echoed), typed into a real sudo's prompt, and found
    /// nowhere: not on the screen, in sshelf's files, its arguments or environment, the release log or sshd's log.
    func testSudoPasswordAskedOnceAndTypedOnlyIntoSudosPrompt() throws {
        try ensureSudoers()
        let world = try FleetWorld(["a", "b"])
        try SudoFlow.passwordTypedOnlyIntoSudosPrompt(
            home: world.home, target: "@prod", hosts: 2, shared: world.shared, sshd: world.sshd)
    }

    /// A wrong password is typed once; sudo's second prompt gets Ctrl-C, and the host is reported as failed with
    /// why (from --sudo-password-fd, as a script gives it).
    func testAWrongSudoPasswordIsTypedOnce() throws {
        try ensureSudoers()
        let world = try FleetWorld(["a"])
        try SudoFlow.wrongPasswordTypedOnce(home: world.home, host: "a")
    }

    /// `--stream`: each line as `host: line` in its host's order, stderr lines on stderr, the statuses at the end
    /// and no grouped copy of the output.
    func testStreamPrefixesLinesInEachHostsOrder() throws {
        let world = try FleetWorld(["a", "b"])
        let run = try world.home.run(
            "run", "@prod", "--stream", "--",
            "for i in 1 2 3 4 5; do echo line-$i; done; printf 'no newline'; echo oops >&2")
        XCTAssertExit(run, 0)
        for host in ["a", "b"] {
            let lines: [String] = run.stdout.split(separator: "\n").map(String.init).filter {
                $0.hasPrefix("\(host): ")
            }
            let expected: [String] = ["line-1", "line-2", "line-3", "line-4", "line-5", "no newline"].map {
                "\(host): " + $0
            }
            XCTAssertEqual(lines, expected, run.stdout)
            XCTAssertTrue(run.stderr.contains("\(host): oops\n"), run.stderr)
        }
        XCTAssertFalse(run.stdout.contains("---------------"), "no grouped copy: \(run.stdout)")
        let last = run.stdout.split(separator: "\n").last.map(String.init) ?? ""
        XCTAssertTrue(last.contains("2 hosts: 2 succeeded"), run.stdout)
        XCTAssertExit(try world.home.run("run", "a", "--stream", "--json", "--", "true"), 2)
    }
}
