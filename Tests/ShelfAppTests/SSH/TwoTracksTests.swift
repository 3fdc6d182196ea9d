// The two tracks arrive at different times: device B has the host (config track) but not yet its password
// (credential track) → `sshelf exec` fails with "not yet synced" and the sshd log shows no password attempt;
// once B takes credentials too, the same command logs in — and the password that arrived by sync is in B's release
// log like any other release (none before it arrived). Real sshd, real folder remote, real vaults.
import Foundation
import TestSupport
import XCTest

final class TwoTracksTests: XCTestCase {

    func testConfigBeforeCredentialThenBoth() throws {
        try TestAccount.ensure()
        let sshd = try SSHD.start()
        let remote =
            (ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp") + "/sshelf-tracks-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: remote, withIntermediateDirectories: true)
        let a = TempHome(), b = TempHome()
        for home in [a, b] { home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1", "SSHELF_TEST_WEAK_KDF": "1"] }

        XCTAssertExit(
            try a.run(
                "add", "pw", "--host", "127.0.0.1", "--port", "\(sshd.port)", "--user", TestAccount.name,
                "--auth", "password"), 0)
        XCTAssertExit(try a.run(["vault", "set-password", "pw", "--secret-fd", "3"], fd3: TestAccount.password), 0)
        // A logs in once with its stored password and pins the host key; the pin travels to B with the host.
        XCTAssertExit(try a.run("exec", "pw", "--accept-new", "--no-stdin", "--", "true"), 0)
        XCTAssertExit(try a.run("sync", "enable", "--folder", remote), 0)
        XCTAssertExit(try b.run("sync", "enable", "--folder", remote), 0)
        try enroll(b, by: a)
        // A's credentials start to travel; B syncs config only.
        XCTAssertExit(try a.run("sync", "enable", "--credentials", "--yes", "--accept-no-passphrase"), 0)
        XCTAssertExit(try b.run("sync", "now"), 0)
        sshd.waitForLog("Disconnected from")
        let before = sshd.log.count
        let early = try b.run("exec", "pw", "--no-stdin", "--", "whoami")
        XCTAssertNotEqual(early.status, 0)
        XCTAssertTrue(early.stderr.contains("the credential for pw has not synced to this device yet"), early.stderr)
        XCTAssertTrue(early.stderr.contains("sshelf sync enable --credentials"), early.stderr)
        sshd.waitForLog("Disconnected from", count: 2)
        let during = String(sshd.log.dropFirst(before))
        XCTAssertTrue(during.contains("Connection from"), "B reached the server:\n\(during)")
        XCTAssertFalse(during.contains("method password"), "no password was tried:\n\(during)")
        XCTAssertFalse(during.contains("Failed password"), during)
        XCTAssertEqual(try releases(b).count, 0, "nothing was released: the password was not there")

        // The credential track arrives.
        XCTAssertExit(try b.run("sync", "enable", "--credentials", "--yes", "--accept-no-passphrase"), 0)
        let later = try b.run("exec", "pw", "--no-stdin", "--", "whoami")
        XCTAssertExit(later, 0)
        XCTAssertEqual(later.stdout, "\(TestAccount.name)\n")
        XCTAssertTrue(sshd.waitForLog("Accepted password"), sshd.log)

        // The synced password's release is logged on B, as A's own use was on A; both logs verify. A's log also
        // holds the line its sync wrote when the password left in A's credential set (docs/VAULT.md), naming the
        // item and no value.
        let released = try releases(b).filter { $0["by"] as? String != "sync" }
        XCTAssertEqual(released.count, 1, "\(released)")
        XCTAssertEqual(released.first?["what"] as? String, "password")
        XCTAssertEqual(released.first?["by"] as? String, "exec")
        XCTAssertEqual(released.first?["host"] as? String, "pw")
        XCTAssertTrue((released.first?["item"] as? String)?.hasPrefix("host.") == true, "\(released)")
        XCTAssertEqual(
            try releases(a).map { [$0["what"] as? String, $0["by"] as? String] },
            [["password", "exec"], ["credential set", "sync"]])
        for home in [a, b] { XCTAssertExit(try home.run("log", "verify"), 0) }
        XCTAssertFalse(
            try String(contentsOfFile: b.sshelfHome + "/state/release.log", encoding: .utf8).contains(
                TestAccount.password),
            "no secret in the log")
    }

    func releases(_ home: TempHome) throws -> [[String: Any]] {
        let result = try home.run("log", "--json")
        XCTAssertExit(result, 0)
        return (try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]) ?? []
    }
}
