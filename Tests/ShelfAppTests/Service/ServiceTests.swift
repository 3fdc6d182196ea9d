// The user service through the real binary (docs/SERVICE.md): one instance per user, its state (--json fields, file
// modes), the agent and forward commands deferring to it, SIGTERM, the systemd unit checked by systemd-analyze, and
// an idle service that does not wake without cause.
import Foundation
import TestSupport
import XCTest

/// A running `sshelf service run` in `home`, and its state file read as JSON.
final class RunningService {
    let home: TempHome
    let process: BackgroundCLI

    init(_ home: TempHome, file: StaticString = #filePath, line: UInt = #line) throws {
        self.home = home
        process = try BackgroundCLI(home, ["service", "run"])
        try process.waitFor("sshelf service running (pid", file: file, line: line)
        try eventually("the service's state file", file: file, line: line) { state() != nil }
    }

    var statePath: String { home.sshelfHome + "/state/service.json" }
    var logPath: String { home.sshelfHome + "/state/service.log" }
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// The state file as the service last wrote it.
    func state() -> [String: Any]? {
        guard let data = FileManager.default.contents(atPath: statePath) else { return nil }
        return try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    }

    func sync() -> [String: Any] { state()?["sync"] as? [String: Any] ?? [:] }

    /// Asks the service to write its state now (SIGUSR2: one turn of its loop) and returns what it wrote.
    func refreshed(file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        // The turn that handled this SIGUSR2 wrote what is read, not one that came first: a later turn of our own
        // signal would otherwise land in a test's idle window.
        let before = state()?["stateRequests"] as? Int ?? 0
        kill(process.pid, SIGUSR2)
        return try eventually(
            "the service to write its state after SIGUSR2", file: file, line: line, observe: { state() ?? [:] },
            until: { ($0["stateRequests"] as? Int ?? 0) == before + 1 })
    }
}

final class ServiceTests: XCTestCase {
    func testOneInstanceItsStateAndTheCommandsThatDeferToIt() throws {
        let home = syncHome()
        let service = try RunningService(home)

        let second = try home.run("service", "run")
        XCTAssertExit(second, 1)
        XCTAssertTrue(
            second.stderr.contains("the sshelf service is already running (pid \(service.process.pid))"), "\(second)")

        let status = try home.run("service", "status", "--json")
        XCTAssertExit(status, 0)
        let json = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any], status.stdout)
        XCTAssertEqual(json["running"] as? Bool, true)
        XCTAssertEqual((json["pid"] as? NSNumber)?.int32Value, service.process.pid)
        let agent = try XCTUnwrap(json["agent"] as? [String: Any])
        XCTAssertEqual(agent["running"] as? Bool, true)
        XCTAssertEqual(agent["socket"] as? String, home.sshelfHome + "/run/agent/socket")
        XCTAssertNotNil(agent["locked"] as? Bool, "\(agent)")
        let forwards = try XCTUnwrap(json["forwards"] as? [String: Any])
        XCTAssertEqual(forwards["note"] as? String, "no enabled autostart forward rules")
        let sync = try XCTUnwrap(json["sync"] as? [String: Any])
        XCTAssertEqual(sync["state"] as? String, "off")
        XCTAssertNotNil(json["wakeups"] as? Int)
        XCTAssertEqual(json["log"] as? String, service.logPath)
        let text = try home.run("service", "status")
        XCTAssertTrue(text.stdout.contains("running, pid \(service.process.pid)"), text.stdout)

        // Its files are private, whatever the umask.
        XCTAssertEqual(PrivateMode.of(service.statePath), 0o600)
        XCTAssertEqual(PrivateMode.of(service.logPath), 0o600)

        // The agent it hosts answers ssh-add, and the commands that would start a second copy say who runs it.
        let listed = try CLI.run(
            ["-l"],
            environment: home.environment.merging(["SSH_AUTH_SOCK": home.sshelfHome + "/run/agent/socket"]) {
                $1
            }, program: TestTool.sshAdd.path)
        XCTAssertEqual(listed.status, 1, "\(listed)")  // "The agent has no identities."
        XCTAssertTrue(listed.stdout.contains("no identities"), "\(listed)")
        let agentStart = try home.run("agent", "start")
        XCTAssertExit(agentStart, 0)
        XCTAssertTrue(agentStart.stdout.contains("the sshelf service (pid \(service.process.pid)) runs the agent"))
        XCTAssertExit(try home.run("agent", "stop"), 1)
        XCTAssertExit(try home.run("add", "fwd", "--host", "127.0.0.1"), 0)
        XCTAssertExit(try home.run("forward", "add", "fwd", "--local", "127.0.0.1:1:localhost:1", "--autostart"), 0)
        let up = try home.run("forward", "up")
        XCTAssertExit(up, 1)
        XCTAssertTrue(up.stderr.contains("the sshelf service (pid \(service.process.pid)) runs the autostart"), "\(up)")
        // The new rule reached the service through the store's change notification.
        try eventually("the service to run the new rule", observe: { service.state()?["forwards"] as? [String: Any] }) {
            (($0?["rules"] as? [String]) ?? []).count == 1
        }

        // SIGTERM: a clean stop, its state file gone, the agent's socket too, and the status says so.
        XCTAssertEqual(try service.process.stop(SIGTERM), 0, service.log)
        XCTAssertFalse(FileManager.default.fileExists(atPath: service.statePath))
        XCTAssertFalse(FileManager.default.fileExists(atPath: home.sshelfHome + "/run/agent/socket"))
        let stopped = try home.run("service", "status", "--json")
        XCTAssertExit(stopped, 3)
        XCTAssertTrue(stopped.stdout.contains("\"running\" : false"), stopped.stdout)
        XCTAssertTrue(service.log.contains("stopped"), service.log)
    }

    func testAnIdleServiceDoesNotWakeWithoutCause() throws {
        let home = syncHome()
        let remote = home.root + "/remote"
        try FileManager.default.createDirectory(atPath: remote, withIntermediateDirectories: true)
        XCTAssertExit(try home.run("add", "idle", "--host", "10.9.9.9"), 0)
        XCTAssertExit(try home.run("sync", "enable", "--folder", remote), 0)
        let service = try RunningService(home)
        // Settled: its first run (and the one its own writes to the folder asked for) are over, and a SIGUSR2 turns
        // the loop exactly once.
        var last = -1
        try eventually("the service to settle", context: { service.log }) {
            let state = try service.refreshed()
            let wakeups = state["wakeups"] as? Int ?? -1
            defer { last = wakeups }
            return (state["sync"] as? [String: Any])?["state"] as? String == "idle" && wakeups == last + 1
        }
        // An idle window (part of the scenario, not a wait for a condition): nothing changes, nothing is due. No
        // thread of the process blocks again in it — a thread that woke on a tick (a poll timeout, libdispatch's
        // worker monitor) and went back to sleep is a voluntary context switch — and the loop turns only for SIGUSR2.
        // Every thread back in its wait after the last SIGUSR2's turn: two looks in a row see the same counts.
        var before: [String: Int] = [:]
        try eventually("the service's threads to be back in their waits") {
            let now = ContextSwitches.voluntary(service.process.pid)
            defer { before = now }
            return now == before
        }
        Thread.sleep(forTimeInterval: 3)
        XCTAssertEqual(ContextSwitches.voluntary(service.process.pid), before, "a thread woke without cause")
        let after = try service.refreshed()
        XCTAssertEqual(after["wakeups"] as? Int, last + 1, "woke without cause:\n\(service.log)")
    }

    func testAFailedRunSaysWhyAndBacksOff() throws {
        let home = syncHome()
        let remote = home.root + "/remote"
        try FileManager.default.createDirectory(atPath: remote, withIntermediateDirectories: true)
        XCTAssertExit(try home.run("sync", "enable", "--folder", remote), 0)
        let service = try RunningService(home)
        try FileManager.default.removeItem(atPath: remote)
        // The folder's watch sees it go: a run, which falls back. A local change made then waits for the backoff.
        _ = try eventually(
            "the service to report the fallback", observe: { service.sync() },
            until: { ($0["failures"] as? Int ?? 0) >= 1 }, context: { service.log })
        XCTAssertExit(try home.run("add", "while-gone", "--host", "10.3.3.3"), 0)
        let sync = try service.refreshed()["sync"] as? [String: Any] ?? [:]
        XCTAssertTrue((sync["lastResult"] as? String ?? "").hasPrefix("local fallback: "), "\(sync)")
        XCTAssertTrue(
            (sync["nextReason"] as? String ?? "").hasPrefix("retry after a failure (backoff 30 s)"), "\(sync)")
        XCTAssertNotNil(sync["nextAttempt"] as? String)
        let text = try home.run("service", "status")
        XCTAssertTrue(text.stdout.contains("local fallback: "), text.stdout)
        XCTAssertTrue(text.stdout.contains("retry after a failure (backoff 30 s)"), text.stdout)
        // The folder back, a nudge (what `vault unlock` and the TUI send) syncs at once instead of after the backoff.
        try FileManager.default.createDirectory(atPath: remote, withIntermediateDirectories: true)
        kill(service.process.pid, SIGUSR1)
        try eventually("the run after the nudge", context: { service.log }) {
            service.sync()["failures"] as? Int == 0 && service.sync()["lastResult"] as? String == "synced"
        }
    }

    func testTheUnitIsWrittenAcceptedBySystemdAndRemoved() throws {
        let home = TempHome()
        let installed = try home.run("service", "install")
        XCTAssertExit(installed, 0)
        let unit = home.home + "/.config/systemd/user/sshelf.service"
        XCTAssertTrue(installed.stdout.contains("wrote \(unit)"), installed.stdout)
        // No systemd --user manager in the test's environment: it says how to start the service instead.
        XCTAssertTrue(installed.stdout.contains("service run >/dev/null 2>&1 &"), installed.stdout)
        let text = try String(contentsOfFile: unit, encoding: .utf8)
        let binary = URL(fileURLWithPath: CLI.binary).standardizedFileURL.path
        XCTAssertTrue(text.contains("ExecStart=\(binary) service run\n"), text)
        XCTAssertTrue(text.contains("Restart=on-failure\n"), text)
        XCTAssertTrue(text.contains("Environment=SSHELF_HOME=\(home.sshelfHome)\n"), text)
        XCTAssertEqual(PrivateMode.of(unit), 0o600)
        let verify = try CLI.run(
            ["verify", unit], environment: home.environment, program: TestTool.systemdAnalyze.path)
        XCTAssertEqual(verify.status, 0, "\(verify)")
        XCTAssertEqual(verify.stderr, "", "\(verify)")

        let removed = try home.run("service", "uninstall")
        XCTAssertExit(removed, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: unit))
    }
}

enum PrivateMode {
    static func of(_ path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : nil
    }
}

/// Each thread's voluntary context switches (/proc/PID/task/*/status), by thread id.
enum ContextSwitches {
    static func voluntary(_ pid: pid_t) -> [String: Int] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var counts: [String: Int] = [:]
        for task in tasks {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8)
            else { continue }
            for line in status.split(separator: "\n") where line.hasPrefix("voluntary_ctxt_switches:") {
                let name = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8)) ?? ""
                counts[task + " " + name.trimmingCharacters(in: .whitespacesAndNewlines)] =
                    Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces))
            }
        }
        return counts
    }
}
