// SudoFlow: `run --sudo` against a real sudo, the steps the fleet tests on sshelf's own client (RunAsPsshTests) and
// on a host handed to OpenSSH (EveryKeyRunOptionsTests) share — the sudoers entry, the password typed once at the
// terminal and looked for everywhere it must not be, and a wrong password typed once.
import Foundation
import TestSupport
import XCTest

enum SudoFlow {
    /// `run TARGET --sudo --json` at a terminal, on commands that wait for the test (in `shared`, a folder the test
    /// account may write to): the password is asked once
    /// (not echoed) and typed; while the `hosts` commands run as root, neither sshelf's process nor those
    /// `helpers(sshelf)` names (OpenSSH's ssh) hold it in their arguments or environment. After they end: it is
    /// not on the screen, in any file under the home, in the release log or the last 10,000 lines of sshd's log.
    /// Returns the screen, the run's JSON lines on it.
    @discardableResult
    static func passwordTypedOnlyIntoSudosPrompt(
        home: TempHome, target: String, hosts: Int, shared: String, sshd: SSHD,
        helpers: (pid_t) throws -> [pid_t] = { _ in [] }, file: StaticString = #filePath, line: UInt = #line
    ) throws -> String {
        let go = shared + "/go"
        defer { _ = FileManager.default.createFile(atPath: go, contents: nil) }
        let command =
            "id -u; touch \(shared)/started-$$; while [ ! -e \(go) ] && [ -d \(shared) ]; do sleep 0.05; done;"
            + " echo done"
        let run = try Tmux(home: home, arguments: ["run", target, "--sudo", "--json", "--", command], columns: 200)
        try run.waitFor(text: "sudo password for the hosts")
        try run.enter(TestAccount.password)
        try eventually("\(hosts) host(s) ran under sudo", context: { (try? run.screen()) ?? "" }) {
            ((try? FileManager.default.contentsOfDirectory(atPath: shared)) ?? [])
                .filter { $0.hasPrefix("started-") }.count == hosts
        }
        // While the hosts run: the arguments and environment of sshelf and of what it started.
        let sshelf = try XCTUnwrap(sshelfProcess(under: try run.panePID()), "sshelf's process", file: file, line: line)
        for pid in [sshelf] + (try helpers(sshelf)) {
            for part in ["cmdline", "environ"] {
                let bytes = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/\(part)"))
                XCTAssertNil(
                    bytes.range(of: Data(TestAccount.password.utf8)), "the password in \(pid)'s \(part)", file: file,
                    line: line)
            }
        }
        _ = FileManager.default.createFile(atPath: go, contents: nil)
        let status = try run.waitForExit()
        let screen = try run.screen()
        XCTAssertEqual(status, 0, screen, file: file, line: line)
        XCTAssertTrue(screen.contains(#""outcome":"succeeded""#), screen, file: file, line: line)
        XCTAssertTrue(screen.contains(#"0\r\n"#), "the command ran as root: \(screen)", file: file, line: line)
        XCTAssertFalse(
            screen.contains("sshelf-sudo-"), "the prompt's marker is taken out of the output: \(screen)", file: file,
            line: line)
        XCTAssertFalse(
            screen.contains(TestAccount.password), "the password was echoed: \(screen)", file: file, line: line)
        try assertNowhere(TestAccount.password, under: home.root, file: file, line: line)
        let log = try home.run("log", "--json")
        XCTAssertFalse(log.stdout.contains(TestAccount.password), "in the release log", file: file, line: line)
        XCTAssertFalse(
            tail(sshd.log, lines: 10_000).contains(TestAccount.password), "in sshd's log", file: file, line: line)
        return screen
    }

    /// `run HOST --sudo` with a wrong password on a descriptor (as a script gives it): typed once, sudo's second
    /// prompt gets Ctrl-C, and the host fails with why. Returns the run and the host's JSON line.
    @discardableResult
    static func wrongPasswordTypedOnce(
        home: TempHome, host: String, file: StaticString = #filePath, line: UInt = #line
    ) throws -> (run: CLIResult, host: [String: Any]) {
        let run = try home.run(
            // A bounded wait: a host that hangs fails the test in minutes, with what it printed, not in ten.
            ["run", host, "--sudo", "--sudo-password-fd", "3", "--command-timeout", "120", "--json", "--", "id -u"],
            fd3: "not the password")
        XCTAssertExit(run, 1, file: file, line: line)
        let answer = try XCTUnwrap(try FleetWorld.jsonLines(run.stdout)[host], run.stdout, file: file, line: line)
        XCTAssertEqual(answer["outcome"] as? String, "failed", run.stdout, file: file, line: line)
        XCTAssertTrue(
            (answer["error"] as? String ?? "").contains("sudo asked for the password again"), run.stdout, file: file,
            line: line)
        XCTAssertFalse((answer["stdout"] as? String ?? "").contains("sshelf-sudo-"), run.stdout, file: file, line: line)
        return (run, answer)
    }

    /// sshelf's process under the tmux pane's shell.
    static func sshelfProcess(under shell: pid_t) -> pid_t? {
        for (pid, parent, command) in processes() where parent == shell || pid == shell {
            if command.hasPrefix("sshelf") { return pid }
        }
        return nil
    }

    /// A child of `parent` whose command is `name`.
    static func child(of parent: pid_t, named name: String) -> pid_t? {
        processes().first { $0.parent == parent && $0.command == name }?.pid
    }

    /// Every process: its id, its parent's and its command (/proc/PID/comm).
    private static func processes() -> [(pid: pid_t, parent: pid_t, command: String)] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { entry in
            guard let pid = pid_t(entry),
                let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
            guard fields.count > 1, let parent = pid_t(fields[1]) else { return nil }
            let command = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? ""
            return (pid, parent, command.trimmingCharacters(in: .newlines))
        }
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

/// For the tests that run a real sudo (SudoFlow's).
extension XCTestCase {
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
}
