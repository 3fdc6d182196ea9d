// The steps around sync through the real binary (issue 33): consent given with `sync enable --credentials` before
// `sync join` survives the join, and the join says what the device will and will not receive; `sync join` on an
// enrolled device says so and what a code would do; `sync revoke` at a terminal goes ahead only when the device's
// name is typed.
import Foundation
import TestSupport
import XCTest

final class SyncStepsTests: XCTestCase {
    func testConsentGivenBeforeTheJoinSurvivesItAndASecondJoinWarns() throws {
        let remote = try syncRemote("cli-steps")
        let a = syncHome(), b = syncHome()
        XCTAssertExit(try a.run("add", "web", "--host", "w.example"), 0)
        XCTAssertExit(try a.run("sync", "enable", "--folder", remote), 0)
        XCTAssertExit(try a.run(["vault", "set-password", "web", "--secret-fd", "3"], fd3: "CANARY-steps-password"), 0)
        XCTAssertExit(try a.run("sync", "enable", "--credentials", "--yes", "--accept-no-passphrase"), 0)

        // B agrees to credential sync first, then joins without the flags: the join keeps the choice.
        _ = try b.run("sync", "enable", "--folder", remote)
        _ = try b.run("sync", "enable", "--credentials", "--yes", "--accept-no-passphrase")
        let invite = try a.run("sync", "invite")
        XCTAssertExit(invite, 0)
        let joined = try b.run(["sync", "join", "--code-fd", "3"], fd3: try inviteCode(invite))
        XCTAssertExit(joined, 0)
        XCTAssertFalse(joined.stderr.contains("config only"), joined.stderr)
        XCTAssertTrue(joined.stdout.contains("credential sync stays on for this device"), joined.stdout)
        XCTAssertTrue(
            joined.stdout.contains(
                "will receive the group's hosts, groups, identities and forwards, and the passwords"),
            joined.stdout)
        XCTAssertExit(try a.run("sync", "now"), 0)
        XCTAssertExit(try b.run("sync", "now"), 0)
        let status = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(try b.run("sync", "status", "--json").stdout.utf8))
                as? [String: Any])
        let lastRun = try XCTUnwrap(status["lastRun"] as? [String: Any])
        XCTAssertEqual(lastRun["credentials"] as? Bool, true, "\(status)")
        XCTAssertEqual(lastRun["credentialsReceived"] as? Int, 1, "the password arrived: \(status)")

        // A second join on the enrolled device says where it stands before anything happens.
        let again = try a.run("sync", "invite")
        let second = try b.run(["sync", "join", "--code-fd", "3"], fd3: try inviteCode(again))
        XCTAssertTrue(
            second.stderr.contains("this device is enrolled in a sync group already (as '"), second.stderr)
        XCTAssertTrue(second.stderr.contains("a code for that group is refused"), second.stderr)
        XCTAssertNotEqual(second.status, 0)

        // A device that joins without agreeing first is told it takes the config only.
        let c = syncHome()
        _ = try c.run("sync", "enable", "--folder", remote)
        let third = try a.run("sync", "invite")
        let plain = try c.run(["sync", "join", "--code-fd", "3"], fd3: try inviteCode(third))
        XCTAssertExit(plain, 0)
        XCTAssertTrue(plain.stderr.contains("this device syncs the config only"), plain.stderr)
        XCTAssertTrue(plain.stdout.contains("not passwords or keys"), plain.stdout)
    }

    func testRevokeAtATerminalNeedsTheDevicesNameTyped() throws {
        let remote = try syncRemote("cli-revoke")
        let a = syncHome(), b = syncHome()
        XCTAssertExit(try a.run("sync", "enable", "--folder", remote), 0)
        XCTAssertExit(try b.run("sync", "enable", "--folder", remote), 0)
        try enroll(b, by: a)
        let devices = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(try a.run("sync", "devices", "--json").stdout.utf8))
                as? [[String: Any]])
        let other = try XCTUnwrap(devices.first { ($0["thisDevice"] as? Bool) != true })
        let (id, name) = (try XCTUnwrap(other["id"] as? String), try XCTUnwrap(other["name"] as? String))

        let wrong = try Tmux(home: a, arguments: ["sync", "revoke", String(id.prefix(8))], columns: 200)
        let asked = try wrong.waitFor(text: "Type the device's name (\(name)) to revoke it:")
        XCTAssertTrue(asked.contains("cannot be undone"), asked)
        try wrong.enter("not-" + name)
        XCTAssertEqual(try wrong.waitForExit(), 2)
        XCTAssertTrue(try wrong.screen().contains("not confirmed; nothing was revoked"))
        XCTAssertFalse(try a.run("sync", "devices").stdout.contains("revoked by"))

        let typed = try Tmux(home: a, arguments: ["sync", "revoke", String(id.prefix(8))], columns: 200)
        try typed.waitFor(text: "to revoke it:")
        try typed.enter(name)
        XCTAssertEqual(try typed.waitForExit(), 0)
        XCTAssertTrue(try a.run("sync", "devices").stdout.contains("revoked by"))
    }
}
