// JumpHostRemovalTests: `rm` keeps a host that others jump through (they could no longer connect) unless --force,
// says which hosts those are and how to re-point them; `check` then names the hosts left with a missing jump host
// (never by UUID), and the fix it prints works.
import Foundation
import TestSupport
import XCTest

final class JumpHostRemovalTests: XCTestCase {
    func testRemovingAJumpHostNeedsForceAndCheckNamesWhatBroke() throws {
        let home = TempHome()
        XCTAssertExit(try home.run("add", "bastion", "--host", "bastion.example.com"), 0)
        XCTAssertExit(try home.run("add", "other jump", "--host", "jump2.example.com"), 0)
        for name in ["app 1", "app2", "app3", "app4", "app5", "app6"] {
            XCTAssertExit(
                try home.run(
                    "add", name, "--host", "\(name.replacingOccurrences(of: " ", with: "")).internal", "--jump",
                    "bastion"), 0)
        }
        let refused = try home.run("rm", "bastion")
        XCTAssertExit(refused, 2)
        XCTAssertTrue(
            refused.stderr.contains("'app 1', 'app2', 'app3', 'app4', 'app5' and 1 more jump through 'bastion'"),
            refused.stderr)
        XCTAssertTrue(refused.stderr.contains("those 6 hosts unable to connect; nothing was removed"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("sshelf edit 'app 1' --jump NAME"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("--force"), refused.stderr)
        XCTAssertExit(try home.run("show", "bastion"), 0)

        // Following the hint: re-point one dependant (the quoted name works as printed, through a shell).
        let repoint = try CLI.run(
            ["-c", "exec \"$0\" edit 'app 1' --jump 'other jump'", CLI.binary],
            environment: home.environment, shell: true)
        XCTAssertExit(repoint, 0)
        XCTAssertTrue(
            try home.run("rm", "bastion").stderr.contains(
                "'app2', 'app3', 'app4', 'app5', 'app6' jump through 'bastion'"))
        // Removing a jump host together with everything behind it needs no --force.
        XCTAssertExit(try home.run("rm", "other jump", "app 1"), 0)

        let forced = try home.run("rm", "bastion", "--force")
        XCTAssertExit(forced, 0)
        XCTAssertTrue(
            forced.stdout.contains("deleted bastion; note: app2, app3, app4, app5, app6 jumped through it"),
            forced.stdout)
        let connect = try home.run("exec", "app2", "--", "true")
        XCTAssertExit(connect, 3)
        XCTAssertTrue(connect.stderr.contains("a jump host of 'app2' no longer exists"), connect.stderr)
        XCTAssertTrue(
            connect.stderr.contains("sshelf: hint: sshelf edit app2 --jump HOST[,HOST...] (or --jump '' for none)"),
            connect.stderr)
        let check = try home.run("check")
        XCTAssertExit(check, 4)
        XCTAssertTrue(check.stdout.contains("host 'app2' goes through a jump host that no longer exists"), check.stdout)
        XCTAssertNil(
            check.stdout.firstMatch(of: /[0-9a-f]{8}-[0-9a-f]{4}-/),
            "hosts are named, not shown by UUID:\n\(check.stdout)")
        let fixes = check.stdout.matches(
            of: /fix: (sshelf edit app[0-9] --jump) HOST\[,HOST...\] \(or --jump '' for none\)/)
        XCTAssertEqual(fixes.count, 5, check.stdout)
        let json = try home.run("check", "--json")
        XCTAssertTrue(json.stdout.contains("\"fix\" : \"sshelf edit app2 --jump"), json.stdout)

        // Following each fix clears the report.
        for name in ["app2", "app3", "app4", "app5", "app6"] {
            XCTAssertExit(try home.run("edit", name, "--jump", ""), 0)
        }
        XCTAssertExit(try home.run("check"), 0)
    }
}
