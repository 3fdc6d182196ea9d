// BridgeFollowsTests: the ssh_config bridge is rewritten after changes that came from elsewhere than a command on
// this device — a real sync run that brings another device's new, edited and removed hosts (OpenSSH's own `ssh -G`
// reads the result), and the TUI's forms — each before the command or the TUI says it is done.
import Foundation
import TestSupport
import XCTest

final class BridgeFollowsTests: XCTestCase {
    func bridge(_ home: TempHome) -> String {
        (try? String(contentsOfFile: home.sshelfHome + "/config/ssh_config", encoding: .utf8)) ?? ""
    }

    func testASyncRunThatChangesHostsRewritesTheBridge() throws {
        let remote = try syncRemote("bridge-sync")
        let a = syncHome(), b = syncHome()
        XCTAssertExit(try b.run("ssh-config", "write"), 0)
        XCTAssertFalse(bridge(b).contains("Host db"))

        XCTAssertExit(
            try a.run([
                "add", "db", "--host", "db.example.com", "--user", "ops",
                "--option", "ServerAliveInterval 15",
            ]), 0)
        XCTAssertExit(try a.run("sync", "enable", "--folder", remote), 0)
        XCTAssertExit(try b.run("sync", "enable", "--folder", remote), 0)  // the group exists: b must join
        try enroll(b, by: a)
        XCTAssertTrue(
            bridge(b).contains("Host db\n    HostName db.example.com\n    User ops\n    ServerAliveInterval 15\n"),
            "b's sync run that brought db wrote it:\n\(bridge(b))")

        // An edit on a reaches b's bridge with b's next sync run, and OpenSSH reads it.
        XCTAssertExit(try a.run("edit", "db", "--port", "2222"), 0)
        XCTAssertExit(try a.run("sync", "now"), 0)
        XCTAssertExit(try b.run("sync", "now"), 0)
        let resolved = try Shell.run(TestTool.ssh.path, ["-F", b.sshelfHome + "/config/ssh_config", "-G", "db"])
        XCTAssertTrue(resolved.contains("\nport 2222\n"), resolved)
        XCTAssertTrue(resolved.contains("\nserveraliveinterval 15\n"), resolved)

        // A removal too.
        XCTAssertExit(try a.run("rm", "db"), 0)
        XCTAssertExit(try a.run("sync", "now"), 0)
        XCTAssertExit(try b.run("sync", "now"), 0)
        XCTAssertFalse(bridge(b).contains("Host db"), bridge(b))
        XCTAssertEqual(BridgeWorld.mode(b.sshelfHome + "/config/ssh_config"), 0o600)
    }

    func testTheTUIsFormsRewriteTheBridge() throws {
        let home = TempHome()
        XCTAssertExit(try home.run("ssh-config", "write"), 0)
        let tui = try Tmux(home: home)
        try tui.waitFor(text: "0 hosts")
        try tui.send("a")
        try tui.waitFor(text: "Add host")
        try tui.type("newbox")
        try tui.send("Tab")
        try tui.type("new.example.com")
        try tui.send("Enter")
        try tui.waitFor(text: "added newbox")
        XCTAssertTrue(bridge(home).contains("Host newbox\n    HostName new.example.com\n"), bridge(home))

        try tui.send("d")
        try tui.waitFor(text: "Delete host newbox?")
        try tui.send("y")
        try tui.waitFor(text: "deleted newbox")
        XCTAssertFalse(bridge(home).contains("Host newbox"), bridge(home))
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }
}
