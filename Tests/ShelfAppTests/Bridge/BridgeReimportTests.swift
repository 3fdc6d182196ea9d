// BridgeReimportTests: import never reads sshelf's own output — after `ssh-config install`, a second import skips
// the Include of the bridge with a note and takes in none of its settings (agent, pins, key copies); a store an older
// import already damaged is found by `check` and mended by `check --fix`.
import Foundation
import ShelfCore
import ShelfStore
import TestSupport
import XCTest

final class BridgeReimportTests: XCTestCase {
    func store(_ home: TempHome) throws -> Store { try Store(path: home.sshelfHome + "/data/store.sqlite") }

    func testImportAfterInstallNeverReadsTheBridge() throws {
        let world = try BridgeWorld()
        let home = world.home
        XCTAssertExit(try home.run(["add", "db1", "--host", "10.0.0.1", "--identity", "vaultkey"]), 0)
        var db1 = try XCTUnwrap(try store(home).hosts().first { $0.name == "db1" })
        db1.pinnedHostKey = PinnedHostKey(
            type: "ssh-ed25519", key: "AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl")
        try store(home).save(db1)
        _ = try home.write("Host own\n    HostName own.example.com\n", to: ".ssh/config")
        XCTAssertExit(try home.run("ssh-config", "install"), 0)
        XCTAssertTrue(world.text(world.bridge).contains("IdentityAgent"), world.text(world.bridge))
        let before = try store(home).identities().count

        let imported = try home.run("import", "ssh-config")
        XCTAssertExit(imported, 0)
        XCTAssertTrue(imported.stdout.contains("1 added, 0 updated"), imported.stdout)
        XCTAssertTrue(
            imported.stdout.contains("Include \(world.bridge) not read: it is sshelf's own output"), imported.stdout)
        XCTAssertEqual(try store(home).identities().count, before)
        let again = try XCTUnwrap(try store(home).hosts().first { $0.name == "db1" })
        XCTAssertEqual(again.options, [])
        XCTAssertEqual(again.identityID, db1.identityID)
        XCTAssertExit(try home.run("check"), 0)

        // The bridge itself named on the command line is refused; its lines copied into a config are left out.
        let direct = try home.run("import", "ssh-config", world.bridge)
        XCTAssertExit(direct, 4)
        XCTAssertTrue(direct.stderr.contains("is not imported: it is sshelf's own output"), direct.stderr)
        let copied = try home.write(
            """
            Host copied
                HostName 10.0.0.2
                IdentityAgent \(world.agentSocket)
                UserKnownHostsFile \(world.pins)
                StrictHostKeyChecking yes
                ServerAliveInterval 5
            """, to: "copied.config")
        let fromCopy = try home.run("import", "ssh-config", copied)
        XCTAssertExit(fromCopy, 0)
        XCTAssertTrue(
            fromCopy.stdout.contains("host 'copied': left out what the ssh_config bridge writes"), fromCopy.stdout)
        XCTAssertEqual(try store(home).hosts().first { $0.name == "copied" }?.options, ["ServerAliveInterval 5"])
    }

    /// A store an import of the bridge damaged before imports skipped it: the bridge's settings as host options and
    /// an identity made from the bridge's copy of a vault key.
    func testCheckFindsTheBridgesSettingsInTheStoreAndFixRemovesThem() throws {
        let world = try BridgeWorld()
        let home = world.home
        XCTAssertExit(try home.run(["add", "db1", "--host", "10.0.0.1", "--identity", "vaultkey"]), 0)
        let s = try store(home)
        let vaultKey = try XCTUnwrap(try s.identities().first { $0.name == "vaultkey" })
        let keyFile = home.sshelfHome + "/config/keys/\(vaultKey.id.uuidString.lowercased()).pub"
        let copy = Identity(name: "\(vaultKey.id.uuidString.lowercased()).pub", keyFile: keyFile)
        try s.save(copy)
        var db1 = try XCTUnwrap(try s.hosts().first { $0.name == "db1" })
        db1.identityID = copy.id
        db1.options = [
            "IdentityAgent \(world.agentSocket)", "UserKnownHostsFile \(world.pins)", "GlobalKnownHostsFile /dev/null",
            "StrictHostKeyChecking yes", "UpdateHostKeys no", "ServerAliveInterval 5",
        ]
        try s.save(db1)

        let check = try home.run("check")
        XCTAssertExit(check, 4)
        XCTAssertTrue(check.stdout.contains("host 'db1' holds settings the ssh_config bridge writes"), check.stdout)
        XCTAssertTrue(
            check.stdout.contains(
                "is a copy of the public key file the ssh_config bridge wrote for identity 'vaultkey'"),
            check.stdout)
        XCTAssertTrue(check.stdout.contains("fix: sshelf check --fix"), check.stdout)

        let fixed = try home.run("check", "--fix")
        XCTAssertExit(fixed, 0)
        XCTAssertTrue(
            fixed.stderr.contains("took 5 bridge settings out of 1 host, removed 1 copied bridge key identity"),
            fixed.stderr)
        XCTAssertEqual(fixed.stdout, "no problems found\n")
        let mended = try XCTUnwrap(try store(home).hosts().first { $0.name == "db1" })
        XCTAssertEqual(mended.options, ["ServerAliveInterval 5"])
        XCTAssertEqual(mended.identityID, vaultKey.id)
        XCTAssertNil(try store(home).identities().first { $0.id == copy.id })
    }
}
