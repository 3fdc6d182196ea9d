// BridgeSourceOfTruthTests: after `ssh-config install`, a host ~/.ssh/config defines takes its settings from that
// file — a Port the user changes there afterwards is what `ssh -G` reads (the bridge yields), `check` says where each
// host's settings come from, that the file changed since the import, and the re-import brings sshelf's copy in step;
// a host only sshelf has keeps sshelf's settings. Forward rules made in sshelf never reach ssh through the bridge
// (sshelf runs them); a LocalForward the user's file gives stays exactly as written. Real OpenSSH (`ssh -G`).
import Foundation
import TestSupport
import XCTest

final class BridgeSourceOfTruthTests: XCTestCase {
    private func resolved(_ home: TempHome, _ name: String) throws -> [String] {
        try Shell.run(TestTool.ssh.path, ["-F", home.home + "/.ssh/config", "-G", name]).split(separator: "\n")
            .map(String.init)
    }

    func testAPortChangedInTheUsersFileAfterInstallIsWhatSshReads() throws {
        let home = TempHome()
        let config = try home.write(
            """
            Host web2
                HostName 10.0.0.2
                Port 2201
                User alice
            """, to: ".ssh/config")
        XCTAssertExit(try home.run("import", "ssh-config"), 0)
        XCTAssertExit(try home.run("add", "solo", "--host", "10.0.0.3", "--port", "2300"), 0)
        XCTAssertExit(try home.run("ssh-config", "install"), 0)
        XCTAssertTrue(try resolved(home, "web2").contains("port 2201"))
        let first = try home.run("check")
        XCTAssertExit(first, 0)
        XCTAssertTrue(
            first.stdout.contains(
                "where ssh takes each host's settings from (\(config) includes the ssh_config bridge):\n"
                    + "  \(config), sshelf adding its vault key, pin and unlock: web2\n"
                    + "  sshelf (the bridge): solo\n"),
            first.stdout)

        // The user edits the Port in their own file: ssh reads the new one at once.
        let text = try String(contentsOfFile: config, encoding: .utf8)
        try text.replacingOccurrences(of: "Port 2201", with: "Port 2202").write(
            toFile: config, atomically: false, encoding: .utf8)
        XCTAssertTrue(try resolved(home, "web2").contains("port 2202"))
        XCTAssertTrue(try resolved(home, "solo").contains("port 2300"), "a host only sshelf has keeps sshelf's")
        // check names the change and offers the re-import, which fixes sshelf's own copy.
        let changed = try home.run("check")
        XCTAssertExit(changed, 4)
        XCTAssertTrue(changed.stdout.contains("\(config) changed since sshelf last imported it"), changed.stdout)
        XCTAssertTrue(
            changed.stdout.contains(
                "host 'web2': ssh takes its settings from \(config), which says port 2202 (sshelf: 2201)"),
            changed.stdout)
        XCTAssertTrue(changed.stdout.contains("fix: sshelf import ssh-config"), changed.stdout)
        XCTAssertExit(try home.run("import", "ssh-config"), 0)
        XCTAssertExit(try home.run("check"), 0)
        XCTAssertTrue(try home.run("export", "ssh-config").stdout.contains("    Port 2202\n"))
        XCTAssertTrue(try resolved(home, "web2").contains("port 2202"))
    }

    func testAForwardAddedInSshelfNeverReachesSshAndTheUsersOwnStays() throws {
        let home = TempHome()
        _ = try home.write(
            """
            Host web1
                HostName 10.0.0.1
                LocalForward 18080 localhost:80
            """, to: ".ssh/config")
        XCTAssertExit(try home.run("import", "ssh-config"), 0)
        XCTAssertExit(try home.run("add", "web3", "--host", "10.0.0.3"), 0)
        XCTAssertExit(try home.run("ssh-config", "install"), 0)
        XCTAssertExit(try home.run("forward", "add", "web1", "--local", "18181:localhost:81"), 0)
        XCTAssertExit(try home.run("forward", "add", "web3", "--local", "18182:localhost:82"), 0)
        XCTAssertEqual(
            try resolved(home, "web1").filter { $0.hasPrefix("localforward ") }, ["localforward 18080 [localhost]:80"])
        XCTAssertEqual(try resolved(home, "web3").filter { $0.hasSuffix("forward") || $0.contains("forward ") }, [])
        let bridge = try String(contentsOfFile: home.sshelfHome + "/config/ssh_config", encoding: .utf8)
        XCTAssertFalse(bridge.contains("18181"), bridge)
        XCTAssertFalse(bridge.contains("18182"), bridge)
    }
}
