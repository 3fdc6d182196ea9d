// KeyExchangeTests: which key exchange a session of sshelf's own client used, through the real binary and a real
// sshd: `connect -v` names it (the one sshd's log shows it agreed on) and says it is not post-quantum, `show` keeps
// it as the host's last session's from this device, and `check` lists the host as one whose last session was not
// post-quantum — without making that a problem (the exit status stays 0).
import Foundation
import ShelfStore
import TestSupport
import XCTest

final class KeyExchangeTests: XCTestCase {
    func testConnectVerboseShowAndCheckSayWhichKeyExchangeTheSessionUsed() throws {
        let world = try SSHCLIWorld()
        XCTAssertFalse(try world.home.run("show", "t").stdout.contains("key exchange"), "no session yet")
        XCTAssertFalse(try world.home.run("check").stdout.contains("not post-quantum"))
        let connect = try world.home.run(["connect", "t", "--accept-new", "-v"], stdin: "exit\n")
        XCTAssertExit(connect, 0)
        // sshd says at DEBUG1 which one both sides agreed on: `kex: algorithm: curve25519-sha256`.
        XCTAssertTrue(world.sshd.waitForLog("kex: algorithm: "), world.sshd.log)
        let agreed = try XCTUnwrap(
            world.sshd.log.split(separator: "\n").first { $0.contains("kex: algorithm: ") }
                .flatMap { $0.components(separatedBy: "kex: algorithm: ").last?.split(separator: " ").first }
                .map(String.init))
        XCTAssertTrue(
            connect.stderr.contains(
                "sshelf: key exchange with t: \(agreed) (not post-quantum); libssh2 has no post-quantum one (sshelf "
                    + "connect t --openssh uses OpenSSH's)"),
            connect.stderr)
        let quiet = try world.home.run(["connect", "t"], stdin: "exit\n")
        XCTAssertExit(quiet, 0)
        XCTAssertFalse(quiet.stderr.contains("key exchange"), "only with -v: \(quiet.stderr)")
        let shown = try world.home.run("show", "t")
        XCTAssertTrue(
            shown.stdout.contains(
                "key exchange   \(agreed) (not post-quantum) (its last session from this device)\n"), shown.stdout)
        // What the TUI's details pane reads (`Catalog.keyExchanges`).
        let store = try Store(path: world.home.sshelfHome + "/data/store.sqlite")
        XCTAssertEqual(Array(try store.lastKeyExchanges().values), [agreed])
        let check = try world.home.run("check")
        XCTAssertExit(check, 0)
        XCTAssertTrue(
            check.stdout.contains("hosts whose last session was not post-quantum")
                && check.stdout.contains("\n  t: \(agreed)\n"), check.stdout)
    }
}
