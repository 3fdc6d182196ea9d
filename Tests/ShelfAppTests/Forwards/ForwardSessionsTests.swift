// ForwardSessionsTests: `sessions N` on a forward rule through the real binary — stored, listed and checked by
// `forward add --sessions`; `forward start` logs in N times with one typed password and one host-key decision,
// spreads concurrent connections over N sshd sessions (seen on the server) with every byte arriving; `forward up`
// reports the spread in `forward status`.
import Foundation
import TestSupport
import XCTest

final class ForwardSessionsTests: XCTestCase {
    private func json(_ result: CLIResult) throws -> [[String: Any]] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]], result.stdout)
    }

    func testSessionsOptionIsStoredListedAndChecked() throws {
        let home = TempHome()
        XCTAssertExit(try home.run("add", "db", "--host", "db.example"), 0)
        XCTAssertExit(try home.run("forward", "add", "db", "-L", "9000:localhost:9000", "--sessions", "4"), 0)
        XCTAssertExit(try home.run("forward", "add", "db", "-D", "1080"), 0)
        let rules = try json(try home.run("forward", "list", "--json"))
        XCTAssertEqual(rules.compactMap { $0["sessions"] as? Int }.sorted(), [1, 4], "\(rules)")
        let table = try home.run("forward", "list").stdout
        XCTAssertTrue(table.contains("SESSIONS"), table)
        let line = try XCTUnwrap(table.split(separator: "\n").first { $0.contains("9000:localhost:9000") })
        XCTAssertTrue(line.split(separator: " ").contains("4"), String(line))

        for (value, message) in [
            (
                "0",
                "sshelf: error: --sessions: '0' is not a whole number from 1 to 16\n"
                    + "sshelf: hint: e.g. --sessions 4\n"
            ),
            (
                "17",
                "sshelf: error: --sessions: '17' is not a whole number from 1 to 16\n"
                    + "sshelf: hint: e.g. --sessions 4\n"
            ),
            (
                "four",
                "sshelf: error: --sessions: 'four' is not a whole number from 1 to 16\n"
                    + "sshelf: hint: e.g. --sessions 4\n"
            ),
        ] {
            let refused = try home.run("forward", "add", "db", "-L", "9001:localhost:9001", "--sessions", value)
            XCTAssertExit(refused, 4)
            XCTAssertEqual(refused.stderr, message)
        }
        let remote = try home.run("forward", "add", "db", "-R", "9002:localhost:9002", "--sessions", "2")
        XCTAssertNotEqual(remote.status, 0)
        XCTAssertTrue(remote.stderr.contains("sessions applies to -L and -D rules"), remote.stderr)
        XCTAssertEqual(try json(try home.run("forward", "list", "--json")).count, 2, "nothing stored when refused")
    }

    func testStartLogsInOncePerSessionWithOneTypedPasswordAndSpreadsTheConnections() throws {
        let world = try SSHCLIWorld()
        XCTAssertExit(try world.home.run("edit", "t", "--auth", "password"), 0)
        let target = try ReverseServer()
        let port = try TrafficSocket.freePort()
        XCTAssertExit(
            try world.home.run("forward", "add", "t", "--local", "\(port):127.0.0.1:\(target.port)", "--sessions", "3"),
            0)
        // One password on stdin answers one prompt; the host key is new and accepted once.
        let running = try BackgroundCLI(
            world.home,
            ["forward", "start", "t", "--accept-new", "--password-fd", "0"],
            stdin: TestAccount.password + "\n")
        try running.waitFor("press Ctrl-C")
        let stateFile = world.home.sshelfHome + "/run/forward-start-\(running.pid).json"
        XCTAssertTrue(running.stderr.contains("(port \(port)) over 3 sessions"), running.stderr)
        XCTAssertEqual(world.sshd.logCount("Accepted password"), 3, world.sshd.log)
        XCTAssertEqual(running.stderr.components(separatedBy: "accepting new host key").count - 1, 1, running.stderr)
        let knownHosts = try String(contentsOfFile: world.knownHostsPath, encoding: .utf8)
        XCTAssertEqual(knownHosts.split(separator: "\n").count, 1, knownHosts)

        let payloads = (0..<3).map { Payload.random((2 << 20) + $0 * 7919) }
        let fds = try payloads.map { _ in try TrafficSocket.connect(port: port) }
        defer { for fd in fds { close(fd) } }
        for (fd, payload) in zip(fds, payloads) { TrafficSocket.writeAll(fd, Array(payload.prefix(100))) }
        let owners = try eventually(
            "three connections from sshd to the target", observe: { SocketOwners.sshdConnections(toPort: target.port) },
            until: { $0.values.reduce(0, +) == 3 })
        XCTAssertEqual(owners.count, 3, "one connection on each of three sshd sessions: \(owners)")

        final class Replies: @unchecked Sendable {
            let lock = NSLock()
            var byIndex: [Int: [UInt8]] = [:]
        }
        let replies = Replies()
        DispatchQueue.concurrentPerform(iterations: fds.count) { index in
            let reply = TrafficSocket.exchange(fds[index], Array(payloads[index].dropFirst(100)))
            replies.lock.lock()
            replies.byIndex[index] = reply
            replies.lock.unlock()
        }
        for (index, payload) in payloads.enumerated() {
            XCTAssertEqual(
                try Payload.sha256(try XCTUnwrap(replies.byIndex[index])), try Payload.sha256(payload.reversed()),
                "connection \(index)")
        }

        // The state file the TUI reads carries the spread.
        try eventually(
            "the spread in the state file",
            observe: { () -> [Int] in
                guard let data = FileManager.default.contents(atPath: stateFile),
                    let state = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                    let rule = (state["rules"] as? [[String: Any]])?.first
                else { return [] }
                return rule["connectionsPerSession"] as? [Int] ?? []
            }, until: { $0 == [1, 1, 1] })

        XCTAssertEqual(try running.stop(SIGINT), 0, running.stderr)
        let total = payloads.map(\.count).reduce(0, +)
        XCTAssertTrue(
            running.stderr.contains("3 connections, \(total) bytes out, \(total) bytes in"), running.stderr)
    }

    func testSupervisorShowsTheSpreadInStatus() throws {
        let world = try SSHCLIWorld()
        XCTAssertExit(try world.home.run("exec", "t", "--accept-new", "--", "true"), 0)
        let target = try ReverseServer()
        let port = try TrafficSocket.freePort()
        XCTAssertExit(
            try world.home.run(
                "forward", "add", "t", "--local", "\(port):127.0.0.1:\(target.port)", "--autostart", "--sessions", "2"),
            0)
        let up = try BackgroundCLI(world.home, ["forward", "up"])
        defer { _ = try? up.stop(SIGTERM) }
        try up.waitFor("t: active")
        for _ in 0..<2 {
            let payload = Payload.random(256 << 10)
            XCTAssertEqual(try TrafficSocket.roundTrip(port: port, payload), payload.reversed())
        }
        let table = try eventually(
            "the spread in forward status", observe: { try world.home.run("forward", "status").stdout },
            until: { $0.contains("2 (1 1)") })
        XCTAssertTrue(table.contains("SESSIONS"), table)
        XCTAssertEqual(world.sshd.logCount("Accepted publickey"), 3, "one exec and two sessions: \(world.sshd.log)")
    }
}
