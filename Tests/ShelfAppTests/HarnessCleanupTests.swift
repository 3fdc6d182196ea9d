// HarnessCleanupTests: what the test harness starts — sshd, ssh-agent, the tmux server and its pane, a daemon left
// running on a test's home, a detached sshelf daemon (the agent: its own session, not below the test) — ends with
// the test process, whether that process is killed outright (a crash: the sshelf daemon's watch on its test owner,
// TestOwnerWatch, is then all that ends it) or exits with the helpers' objects still alive (XCTest holds test cases
// until exit). Each test runs itself again as a child test process that starts the helpers and then ends that way;
// the parent checks every process is gone. A user's daemon, started without the harness's variable, has no watch.
import Foundation
import TestSupport
import XCTest

final class HarnessCleanupTests: XCTestCase {
    /// Set in the child: where it writes what it started.
    private static let childReport = "SSHELF_HARNESS_CHILD_REPORT"

    private enum Ending: String { case killed, exited }

    func testHelpersEndWhenTheTestProcessIsKilled() throws { try check(.killed) }

    func testHelpersAndHomeDaemonsEndWhenTheTestProcessExitsHoldingThem() throws { try check(.exited) }

    private func check(_ ending: Ending, function: String = #function) throws {
        if let report = ProcessInfo.processInfo.environment[Self.childReport] {
            try startHelpersAndEnd(ending, report: report)
        }
        let report = TestScratch.root + "/child-report-" + UUID().uuidString.prefix(6)
        let output = TestScratch.root + "/child-output-" + UUID().uuidString.prefix(6)
        let test = "ShelfAppTests.\(Self.self)/" + function.replacingOccurrences(of: "()", with: "")
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        var environment = ProcessInfo.processInfo.environment
        environment[Self.childReport] = report
        environment["SSHELF_KEEP_SSHD"] = nil  // the server's folder must go at exit, whatever the developer keeps
        let child = try SpawnedProcess(executable, [test], environment: environment, output: output)
        let childOutput = { tail((try? String(contentsOfFile: output, encoding: .utf8)) ?? "") }
        try eventually("the child test process to end", deadline: Deadline.long, context: childOutput) {
            !child.isRunning
        }
        XCTAssertEqual(child.wait(), ending == .killed ? 128 + SIGKILL : 0, childOutput())
        let lines = ((try? String(contentsOfFile: report, encoding: .utf8)) ?? "").split(separator: "\n")
        guard let done = lines.last, done == "started" else {
            return XCTFail("the child did not start its helpers:\n\(lines.joined(separator: "\n"))\n\(childOutput())")
        }
        let started = lines.dropLast().compactMap(StartedProcess.init)
        // The child's helpers, each checked: a missing one would let this test pass for the wrong reason.
        for name in ["sshd", "ssh-agent", "tmux: server", "sh", "sshelf"] {
            XCTAssertTrue(started.contains { $0.name.hasPrefix(name) }, "no \(name) among \(started)")
        }
        try eventually(
            "every process the child started to end",
            context: { started.filter(\.isRunning).map { ProcessTree.describe($0.pid) }.joined(separator: "\n") }
        ) { !started.contains(where: \.isRunning) }
        for line in lines where line.hasPrefix("directory ") {
            let directory = String(line.dropFirst("directory ".count))
            // Removed at exit; a killed process removes nothing (its files are not a running process: ours to
            // clean).
            if ending == .exited { XCTAssertFalse(FileManager.default.fileExists(atPath: directory), directory) }
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// The child: starts each helper, writes down every process it then has below it (and the home's daemon),
    /// and ends as told without letting go of anything.
    private func startHelpersAndEnd(_ ending: Ending, report: String) throws -> Never {
        let sshd = try SSHD.start()
        let agent = try TestAgent()
        let home = TempHome()
        let tui = try Tmux(
            home: home, command: [TestTool.sh.path, "-c", "echo waiting; read line"],
            environment: ["PATH": "/usr/bin:/bin"])
        try tui.waitFor(text: "waiting")
        // A real sshelf daemon of the home, detached as for a user (a new session, reparented away from us).
        let started = try home.run("agent", "start")
        guard started.status == 0 else { throw HarnessError("sshelf agent start failed: \(started)") }
        var daemons = Self.agents(of: home)
        guard !daemons.isEmpty else { throw HarnessError("no sshelf agent runs on \(home.sshelfHome)") }
        if ending == .exited {
            // A daemon the home started that escaped the process tree, as sshelf's keepers and agents do: only
            // the home's clean-up (at exit) can find it. It waits on a FIFO it holds open both ways: forever.
            let fifo = home.root + "/daemon.fifo"
            guard mkfifo(fifo, 0o600) == 0 else { throw HarnessError("cannot make \(fifo)") }
            let pidFile = home.root + "/daemon.pid"
            try SpawnedProcess.run(
                TestTool.sh.path, ["-c", "(exec 0<>'\(fifo)'; read line) & echo $! > '\(pidFile)'"],
                environment: home.environment)
            let text = try String(contentsOfFile: pidFile, encoding: .utf8)
            daemons.append(pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0)
        }
        let processes = ProcessTree.descendants(of: getpid()) + daemons
        let lines =
            processes.compactMap { StartedProcess(pid: $0)?.line }
            + ["directory \(sshd.directory)", "directory \(home.root)", "directory \(TestScratch.root)", "started"]
        try (lines.joined(separator: "\n") + "\n").write(toFile: report, atomically: true, encoding: .utf8)
        // Held past exit, as XCTest holds a test case's properties.
        Self.held = (sshd, agent, home, tui)
        if ending == .killed { kill(getpid(), SIGKILL) }
        exit(0)
    }

    nonisolated(unsafe) private static var held: Any?

    /// A user's sshelf daemon (started without SSHELF_TEST_OWNER_PID) detaches for real: no thread of it watches
    /// the process that started it. Under the harness the same daemon has that watch.
    func testOnlyTheHarnessesSshelfDaemonsWatchTheirStarter() throws {
        for underHarness in [true, false] {
            let home = TempHome()
            if !underHarness { home.extraEnvironment["SSHELF_TEST_OWNER_PID"] = "" }
            XCTAssertExit(try home.run("agent", "start"), 0)
            let agent = try XCTUnwrap(Self.agents(of: home).first, "no agent runs")
            let threads = Self.threadNames(agent)
            XCTAssertEqual(threads.contains("test-owner"), underHarness, "threads of the agent: \(threads)")
        }
    }

    /// The sshelf agents running on `home` (by their command line).
    private static func agents(of home: TempHome) -> [pid_t] {
        HomeProcesses.running(home: home.sshelfHome).filter { pid in
            let command = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))) ?? Data()
            let words = command.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            return words.count > 2 && words[1] == "agent" && words[2] == "--ready-fd"
        }
    }

    private static func threadNames(_ pid: pid_t) -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.compactMap { task in
            (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }
}

/// A process by pid and start time (so a pid the kernel reused later is not taken for it) and its name.
private struct StartedProcess: CustomStringConvertible {
    let pid: pid_t
    let startTime: String
    let name: String

    init?(pid: pid_t) {
        guard let stat = Self.stat(pid) else { return nil }
        self.pid = pid
        startTime = stat.startTime
        name = ProcessTree.name(of: pid) ?? "?"
    }

    /// Parses a report line: "pid start-time name".
    init?(_ line: Substring) {
        let fields = line.split(separator: " ", maxSplits: 2).map(String.init)
        guard fields.count == 3, let pid = pid_t(fields[0]) else { return nil }
        self.pid = pid
        startTime = fields[1]
        name = fields[2]
    }

    var line: String { "\(pid) \(startTime) \(name)" }
    var description: String { "\(name) (\(pid))" }

    /// Still running: the same process (same start time) and not a zombie.
    var isRunning: Bool {
        guard let stat = Self.stat(pid) else { return false }
        return stat.startTime == startTime && stat.state != "Z"
    }

    /// The state letter and start time of /proc/PID/stat (fields 3 and 22, after the parenthesised name).
    private static func stat(_ pid: pid_t) -> (state: String, startTime: String)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ").map(String.init)
        guard fields.count > 19 else { return nil }
        return (fields[0], fields[19])
    }
}
