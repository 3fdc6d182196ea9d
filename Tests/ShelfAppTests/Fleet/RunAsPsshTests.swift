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
        let go = world.shared + "/go"
        defer { _ = FileManager.default.createFile(atPath: go, contents: nil) }
        let command =
            "id -u; touch \(world.shared)/started-$$; while [ ! -e \(go) ] && [ -d \(world.shared) ]; do sleep 0.05;"
            + " done; echo done"
        let run = try Tmux(
            home: world.home, arguments: ["run", "@prod", "--sudo", "--json", "--", command], columns: 200)
        try run.waitFor(text: "sudo password for the hosts")
        try run.enter(TestAccount.password)
        try eventually("both hosts ran under sudo", context: { (try? run.screen()) ?? "" }) {
            ((try? FileManager.default.contentsOfDirectory(atPath: world.shared)) ?? [])
                .filter { $0.hasPrefix("started-") }.count == 2
        }
        // While the hosts run: sshelf's arguments and environment.
        let pid = try XCTUnwrap(Self.sshelfProcess(under: try run.panePID()), "sshelf's process")
        for part in ["cmdline", "environ"] {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/\(part)"))
            XCTAssertNil(bytes.range(of: Data(TestAccount.password.utf8)), "the password in sshelf's \(part)")
        }
        _ = FileManager.default.createFile(atPath: go, contents: nil)
        let status = try run.waitForExit()
        let screen = try run.screen()
        XCTAssertEqual(status, 0, screen)
        XCTAssertTrue(screen.contains(#""outcome":"succeeded""#), screen)
        XCTAssertTrue(screen.contains(#"0\r\n"#), "the command ran as root: \(screen)")
        XCTAssertFalse(screen.contains("sshelf-sudo-"), "the prompt's marker is taken out of the output: \(screen)")
        XCTAssertFalse(screen.contains(TestAccount.password), "the password was echoed: \(screen)")
        try Self.assertNowhere(TestAccount.password, under: world.home.root)
        let log = try world.home.run("log", "--json")
        XCTAssertFalse(log.stdout.contains(TestAccount.password))
        XCTAssertFalse(tail(world.sshd.log, lines: 10_000).contains(TestAccount.password))
    }

    /// A wrong password is typed once; sudo's second prompt gets Ctrl-C, and the host is reported as failed with
    /// why (from --sudo-password-fd, as a script gives it).
    func testAWrongSudoPasswordIsTypedOnce() throws {
        try ensureSudoers()
        let world = try FleetWorld(["a"])
        let run = try world.home.run(
            // A bounded wait: a host that hangs fails the test in minutes, with what it printed, not in ten.
            ["run", "a", "--sudo", "--sudo-password-fd", "3", "--command-timeout", "120", "--json", "--", "id -u"],
            fd3: "not the password")
        XCTAssertExit(run, 1)
        let host = try XCTUnwrap(try FleetWorld.jsonLines(run.stdout)["a"], run.stdout)
        XCTAssertEqual(host["outcome"] as? String, "failed", run.stdout)
        XCTAssertTrue((host["error"] as? String ?? "").contains("sudo asked for the password again"), run.stdout)
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

    // MARK: helpers

    /// The test account may use sudo for anything with its password, asked every time (no cached login) — for this
    /// test only: the entry (one file per test process) is removed when the test ends, so a machine that ran the
    /// tests is not left with a sudo-capable account whose password is in this source. Entries of test processes
    /// that died (and the single file older runs left) are removed first.
    func ensureSudoers() throws {
        guard FileManager.default.isExecutableFile(atPath: TestTool.sudo.path) else {
            throw HarnessError("sudo is missing: \(TestTool.sudo.path)")
        }
        let folder = "/etc/sudoers.d"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            guard name == "sshelf-test" || name.hasPrefix("sshelf-test-") else { continue }
            let owner = pid_t(name.dropFirst("sshelf-test-".count))
            if name == "sshelf-test" || owner.map({ kill($0, 0) != 0 && errno == ESRCH }) == true {
                unlink("\(folder)/\(name)")
            }
        }
        // sudo reads every file in the folder whose name has no '.' and does not end in '~'.
        let path = "\(folder)/sshelf-test-\(getpid())"
        let text =
            "Defaults:\(TestAccount.name) timestamp_timeout=0, !lecture\n\(TestAccount.name) ALL=(ALL:ALL) ALL\n"
        let temporary = "\(folder)/.sshelf-test-\(getpid()).tmp"
        try text.write(toFile: temporary, atomically: false, encoding: .utf8)
        chmod(temporary, 0o440)
        guard rename(temporary, path) == 0 else { throw HarnessError("cannot write \(path)") }
        addTeardown { unlink(path) }
    }

    /// sshelf's process under the tmux pane's shell.
    static func sshelfProcess(under shell: pid_t) -> pid_t? {
        let all = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in all {
            guard let pid = pid_t(entry),
                let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
            guard fields.count > 1, pid_t(fields[1]) == shell || pid == shell else { continue }
            let command = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? ""
            if command.hasPrefix("sshelf") { return pid }
        }
        return nil
    }

    /// No file under `root` holds `secret`.
    static func assertNowhere(_ secret: String, under root: String, file: StaticString = #filePath, line: UInt = #line)
        throws
    {
        let needle = Data(secret.utf8)
        let files = FileManager.default.enumerator(atPath: root)
        while let relative = files?.nextObject() as? String {
            let path = root + "/" + relative
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                let data = FileManager.default.contents(atPath: path)
            else { continue }
            XCTAssertNil(data.range(of: needle), "the secret is in \(path)", file: file, line: line)
        }
    }
}
