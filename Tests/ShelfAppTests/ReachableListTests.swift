// ReachableListTests: `sshelf list --reachable` through the real binary — a real sshd is "up" (directly and as the
// first hop of a jump chain, "via" it), a port nobody listens on "down: refused", the same in --json, the exit status
// that of the listing; sshd's log shows the probes were connections that ended before any SSH exchange; bad
// --timeout values and --timeout without --reachable are refused.
import Foundation
import TestSupport
import XCTest

final class ReachableListTests: XCTestCase {
    func testListReachableProbesALivePortAndAClosedOne() throws {
        let sshd = try SSHD.start()
        let closed = try TestPorts.free()
        let home = TempHome()
        XCTAssertExit(try home.run("add", "live", "--host", "127.0.0.1", "--port", String(sshd.port)), 0)
        XCTAssertExit(try home.run("add", "dead", "--host", "127.0.0.1", "--port", String(closed)), 0)
        XCTAssertExit(try home.run("add", "inner", "--host", "10.255.255.1", "--jump", "live"), 0)

        let list = try home.run("list", "--reachable", "--timeout", "10")
        XCTAssertExit(list, 0)
        let lines = list.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines[0].hasSuffix("REACHABLE"), list.stdout)
        func line(_ name: String) -> String { lines.first { $0.hasPrefix(name + " ") } ?? "" }
        XCTAssertNotNil(line("live").range(of: #"up [0-9.]+ ms$"#, options: .regularExpression), list.stdout)
        XCTAssertTrue(line("dead").hasSuffix("down: refused"), list.stdout)
        XCTAssertNotNil(
            line("inner").range(of: #"up [0-9.]+ ms via live$"#, options: .regularExpression),
            "probed at its first jump host: \(list.stdout)")

        let json = try home.run("list", "--reachable", "--json", "--timeout", "10")
        XCTAssertExit(json, 0)
        let records = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        func reachable(_ name: String) -> [String: Any] {
            (records.first { $0["name"] as? String == name }?["reachable"] as? [String: Any]) ?? [:]
        }
        XCTAssertEqual(reachable("live")["state"] as? String, "up")
        XCTAssertNotNil(reachable("live")["milliseconds"] as? Double)
        XCTAssertEqual(reachable("dead")["state"] as? String, "down")
        XCTAssertEqual(reachable("dead")["reason"] as? String, "refused")
        XCTAssertEqual(reachable("inner")["via"] as? String, "live")

        // Without --reachable nothing is probed and nothing is added.
        let plain = try home.run("list", "--json")
        XCTAssertFalse(plain.stdout.contains("\"reachable\""), plain.stdout)

        // sshd saw each probe close before the client said a word: no banner (sshd logs "Remote protocol version"
        // when one arrives), so no key exchange and no login. A probe that closes after sshd's own banner reached it
        // unread ends with a reset rather than a close ("kex_exchange_identification: read: Connection reset by
        // peer", seen under load): either way the exchange of identifications never happened.
        XCTAssertTrue(sshd.waitForLog("kex_exchange_identification: ", count: 4), sshd.log)
        XCTAssertEqual(sshd.logCount("Remote protocol version"), 0, sshd.log)
        XCTAssertEqual(sshd.logCount("Failed "), 0, sshd.log)
        XCTAssertEqual(sshd.logCount("Accepted "), 0, sshd.log)
    }

    func testBadTimeoutsAreRefused() throws {
        let home = TempHome()
        XCTAssertExit(try home.run("add", "a", "--host", "127.0.0.1"), 0)
        let alone = try home.run("list", "--timeout", "2")
        XCTAssertExit(alone, 2)
        XCTAssertTrue(alone.stderr.contains("--timeout needs --reachable"), alone.stderr)
        for bad in ["0", "soon", "601"] {
            let result = try home.run("list", "--reachable", "--timeout", bad)
            XCTAssertExit(result, 4)
            XCTAssertTrue(result.stderr.contains("--timeout: '\(bad)' is not a number of seconds"), result.stderr)
        }
    }
}
