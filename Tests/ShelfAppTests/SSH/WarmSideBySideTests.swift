// WarmSideBySideTests: a warm keeper serves its callers side by side — a command that runs on holds back no other
// caller's, nor `warm stop`, and each command's end reaches its caller at once — and a caller that goes away
// (killed, a fleet run's second Ctrl-C) has its command stopped on the server instead of left running
// (RemoteProcess watches it through /proc: the server runs it as the test account).
import Foundation
import TestSupport
import XCTest

final class WarmSideBySideTests: XCTestCase {
    func testASlowCommandHoldsBackNoOtherCaller() throws {
        let world = try FleetWorld(["a"])
        defer { _ = try? world.home.run("warm", "stop") }
        XCTAssertExit(try world.home.run("exec", "a", "--persist", "--persist-for", "120", "-n", "--", "true"), 0)
        let go = world.shared + "/go", started = world.shared + "/started"
        let slow = try BackgroundSshelf(
            world.home,
            [
                "exec", "a", "-n", "--",
                "touch \(started); while [ ! -e \(go) ] && [ -d \(world.shared) ]; do sleep 0.05; done; echo slow-done",
            ])
        defer { _ = FileManager.default.createFile(atPath: go, contents: nil) }
        try eventually("the slow command started", context: { slow.stderr }) {
            FileManager.default.fileExists(atPath: started)
        }
        let quick = try BackgroundSshelf(world.home, ["exec", "a", "-n", "--", "echo quick"])
        try eventually("the quick command ended while the slow one runs", context: { quick.stderr }) {
            !quick.process.isRunning
        }
        XCTAssertEqual(quick.process.wait(), 0, quick.stderr)
        XCTAssertEqual(quick.stdout, "quick\n")
        XCTAssertTrue(slow.process.isRunning, "the slow command still waits for its file: \(slow.stderr)")
        _ = FileManager.default.createFile(atPath: go, contents: nil)
        XCTAssertEqual(slow.process.wait(), 0, slow.stderr)
        XCTAssertEqual(slow.stdout, "slow-done\n")
        XCTAssertEqual(
            world.sshd.logCount("Accepted publickey"), 1, "both ran on the keeper's login: \(world.sshd.log)")
    }

    /// A command's end (its output's EOF, exit status and close, often read off the socket while another channel
    /// was served) reaches its caller at once, not when the keeper next wakes on its own: with ServerAliveInterval
    /// 600 nothing else wakes it for ten minutes, far past the deadline here. One call at a time (with stdin, whose
    /// relay ends too), then eight side by side.
    func testACommandsEndReachesItsCallerWithoutWaitingForTheKeepersNextWakeUp() throws {
        let world = try FleetWorld(["a"])
        defer { _ = try? world.home.run("warm", "stop") }
        XCTAssertExit(try world.home.run("edit", "a", "--option", "ServerAliveInterval 600"), 0)
        XCTAssertExit(try world.home.run("exec", "a", "--persist", "--persist-for", "1200", "-n", "--", "true"), 0)
        func ended(_ call: BackgroundSshelf, _ index: Int) throws {
            try eventually("call \(index) ended", context: { call.stderr }) { !call.process.isRunning }
            XCTAssertEqual(call.process.wait(), Int32(index), call.stderr)
            XCTAssertEqual(call.stdout, "\(index)\n")
        }
        for index in 0..<3 {
            try ended(try BackgroundSshelf(world.home, ["exec", "a", "--", "echo \(index); exit \(index)"]), index)
        }
        let side = try (3..<11).map {
            try BackgroundSshelf(world.home, ["exec", "a", "-n", "--", "echo \($0); exit \($0)"])
        }
        for (offset, call) in side.enumerated() { try ended(call, offset + 3) }
        XCTAssertEqual(world.sshd.logCount("Accepted publickey"), 1, "all ran on the keeper's login: \(world.sshd.log)")
    }

    /// The caller killed mid-command: the keeper notices its socket close and ends the channel (TERM first on
    /// libssh2 1.11; on 1.10 the command dies at its next write, as here), then serves the next caller.
    func testACallerThatIsKilledHasItsCommandStopped() throws {
        let world = try FleetWorld(["a"])
        defer { _ = try? world.home.run("warm", "stop") }
        let loop = try RemoteLoop(world, ticking: true)
        defer { loop.end() }
        let (caller, pid) = (loop.caller, loop.pid)
        try eventually("output comes through", context: { caller.stderr }) { caller.stdout.contains("tick") }
        XCTAssertEqual(kill(caller.process.pid, SIGKILL), 0)
        _ = caller.process.wait()
        try eventually("the remote command ended after its caller was killed") { !RemoteProcess.isAlive(pid) }
        let next = try world.home.run("exec", "a", "-n", "--", "echo after")
        XCTAssertExit(next, 0)
        XCTAssertEqual(next.stdout, "after\n")
        XCTAssertEqual(world.sshd.logCount("Accepted publickey"), 1, "the keeper went on: \(world.sshd.log)")
    }

    /// A command that neither writes nor reads: where libssh2 sends signals (1.11) the keeper's TERM ends it; 1.10
    /// can only close the channel, which such a command outlives (docs/SSH.md says so).
    func testACallerThatIsKilledHasItsSilentCommandSignalledWhereTheLibraryCan() throws {
        let world = try FleetWorld(["a"])
        let version = try world.home.run("version", "--verbose")
        guard version.stdout.contains("  yes Ctrl-C reaches the remote command") else {
            throw skipped("the loaded libssh2 cannot send a remote command a signal (1.11 or later can)")
        }
        defer { _ = try? world.home.run("warm", "stop") }
        let loop = try RemoteLoop(world, ticking: false)
        defer { loop.end() }
        let (caller, pid) = (loop.caller, loop.pid)
        XCTAssertEqual(kill(caller.process.pid, SIGKILL), 0)
        _ = caller.process.wait()
        try eventually("the silent remote command ended after its caller was killed") { !RemoteProcess.isAlive(pid) }
    }

    /// `warm stop` while a command runs: answered at once (not when the command ends), the command stopped, its
    /// caller told why.
    func testWarmStopEndsRunningCommandsAndTellsTheirCallers() throws {
        let world = try FleetWorld(["a"])
        defer { _ = try? world.home.run("warm", "stop") }
        let loop = try RemoteLoop(world, ticking: true)
        defer { loop.end() }
        let (caller, pid) = (loop.caller, loop.pid)
        try eventually("output comes through", context: { caller.stderr }) { caller.stdout.contains("tick") }
        let stop = try world.home.run("warm", "stop", "a")
        XCTAssertExit(stop, 0)
        XCTAssertEqual(stop.stdout, "stopped 1 warm session\n")
        try eventually("the caller was told", context: { caller.stderr }) { !caller.process.isRunning }
        XCTAssertEqual(caller.process.wait(), 255, caller.stderr)
        XCTAssertTrue(caller.stderr.contains("the warm session was stopped"), caller.stderr)
        try eventually("the remote command ended after warm stop") { !RemoteProcess.isAlive(pid) }
    }
}

/// Host `a`'s warm keeper, then a caller through it running a remote loop (printing "tick" every 0.1 s when
/// `ticking`) that writes its pid first and runs until `end()`: the loop ends by itself once the test is over,
/// whatever happened — the test account's processes are not ours to kill.
struct RemoteLoop {
    let caller: BackgroundSshelf
    let pid: Int32
    private let endFile: String

    init(_ world: FleetWorld, ticking: Bool) throws {
        XCTAssertExit(try world.home.run("exec", "a", "--persist", "--persist-for", "120", "-n", "--", "true"), 0)
        endFile = world.shared + "/end"
        let pidFile = world.shared + "/pid", tick = ticking ? "echo tick; " : ""
        caller = try BackgroundSshelf(
            world.home,
            [
                "exec", "a", "-n", "--",
                "echo $$ > \(pidFile); while [ ! -e \(endFile) ] && [ -d \(world.shared) ]; do \(tick)sleep 0.1; done",
            ])
        do {
            pid = try RemoteProcess.pid(in: pidFile)
        } catch {
            _ = FileManager.default.createFile(atPath: endFile, contents: nil)
            throw error
        }
    }

    func end() { _ = FileManager.default.createFile(atPath: endFile, contents: nil) }
}

/// A process on the test's sshd (run as the test account), watched through /proc.
enum RemoteProcess {
    /// The pid a remote command wrote to `path`.
    static func pid(in path: String, file: StaticString = #filePath, line: UInt = #line) throws -> Int32 {
        try eventually(
            "a pid in \(path)", file: file, line: line,
            observe: {
                Int32(
                    ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").trimmingCharacters(
                        in: .whitespacesAndNewlines))
            }, until: { $0 != nil }) ?? 0
    }

    /// Running (a zombie waiting for its parent counts as ended).
    static func isAlive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        let state = stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).prefix(1)
        return state != "Z" && state != "X"
    }
}
