// UniqueNameTests: a host name is what every command finds a host by, so `add`, `edit --rename` and import refuse a
// name another host has (ignoring case), naming that host; `--allow-duplicate` keeps both. Names that are shared
// anyway (sync can bring that) are reported by `check` and by every name-based command, each with a way out that is
// followed here to prove it works.
import Foundation
import TestSupport
import XCTest

final class UniqueNameTests: XCTestCase {
    func testAddAndRenameRefuseANameInUse() throws {
        let home = TempHome()
        XCTAssertExit(try home.run("add", "lab", "--host", "lab1.example.com", "--user", "deploy"), 0)
        XCTAssertExit(try home.run("add", "db", "--host", "db.example.com"), 0)
        for name in ["lab", "LAB", "Lab"] {
            let again = try home.run("add", name, "--host", "lab2.example.com")
            XCTAssertExit(again, 4)
            XCTAssertTrue(
                again.stderr.contains("a host named 'lab' already exists (deploy@lab1.example.com, id "), again.stderr)
            XCTAssertTrue(again.stderr.contains("--allow-duplicate"), again.stderr)
        }
        let renamed = try home.run("edit", "db", "--rename", "Lab")
        XCTAssertExit(renamed, 4)
        XCTAssertTrue(renamed.stderr.contains("a host named 'lab' already exists"), renamed.stderr)
        XCTAssertEqual(try names(home), ["db", "lab"], "nothing was added or renamed")
        // A host may change the case of its own name, and keep settings while it shares none.
        XCTAssertExit(try home.run("edit", "lab", "--rename", "Lab"), 0)
        XCTAssertExit(try home.run("edit", "Lab", "--port", "2222"), 0)
        // The hint's way: keep both on purpose.
        XCTAssertExit(try home.run("add", "lab", "--host", "lab2.example.com", "--allow-duplicate"), 0)
        XCTAssertEqual(try names(home).sorted(), ["Lab", "db", "lab"])
        // A host that already shares its name stays editable.
        XCTAssertExit(try home.run("edit", "lab", "--port", "2200"), 0)
    }

    func testASharedNameIsExplainedAndEachWayOutWorks() throws {
        let home = TempHome()
        XCTAssertExit(try home.run("add", "lab", "--host", "10.0.0.1"), 0)
        XCTAssertExit(try home.run("add", "lab", "--host", "10.0.0.2", "--allow-duplicate"), 0)
        let ids = try hostIDs(home)
        for command in [
            ["show", "lab"], ["edit", "lab", "--port", "2"], ["rm", "lab"], ["exec", "lab", "--", "true"],
            ["forward", "add", "lab", "--dynamic", "1080"], ["mv", "lab", "--group", "x"],
        ] {
            let result = try home.run(command)
            XCTAssertExit(result, 2)
            XCTAssertTrue(result.stderr.contains("2 hosts are named 'lab': lab@"), "\(command): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("(10.0.0.1)") && result.stderr.contains("(10.0.0.2)"), result.stderr)
            XCTAssertTrue(
                result.stderr.contains("say which one as NAME@ID in place of the name (e.g. lab@"), result.stderr)
            XCTAssertTrue(result.stderr.contains("or by its id with --id ID"), result.stderr)
        }
        // Way out 1, from the hint: NAME@ID picks one.
        let shared = try home.run("show", "lab")
        let example = try XCTUnwrap(shared.stderr.firstMatch(of: /\(e\.g\. (lab@[0-9a-f]{8})\)/)?.1)
        let picked = try home.run("show", String(example))
        XCTAssertExit(picked, 0)
        let first = try XCTUnwrap(ids["10.0.0.1"]), second = try XCTUnwrap(ids["10.0.0.2"])
        XCTAssertTrue(picked.stdout.contains(first) || picked.stdout.contains(second), picked.stdout)
        XCTAssertExit(try home.run("show", "lab@ffffffff"), 3)
        // Way out 1b: --id in place of the name, on any command that takes one host.
        let id = String(example.dropFirst(4))
        let byID = try home.run("show", "--id", id)
        XCTAssertExit(byID, 0)
        XCTAssertEqual(byID.stdout, picked.stdout)
        XCTAssertExit(try home.run("mv", "--id", id, "--group", "lab-hosts"), 0)
        XCTAssertExit(try home.run("show", "--id", "ffffffff"), 3)
        XCTAssertExit(try home.run("show", "--id", "xyz"), 4)
        // check reports the clash, with the command that ends it.
        let check = try home.run("check")
        XCTAssertExit(check, 4)
        XCTAssertTrue(check.stdout.contains("2 hosts are named 'lab'"), check.stdout)
        let fix = try XCTUnwrap(check.stdout.firstMatch(of: /fix: sshelf edit (lab@[0-9a-f]{8}) --rename NEWNAME/)?.1)
        // Way out 2, from the hint: rename one; the name then works alone again.
        let renamed = try XCTUnwrap(
            shared.stderr.firstMatch(of: /rename one: sshelf edit (lab@[0-9a-f]{8}) --rename NEWNAME/)?.1)
        XCTAssertEqual(renamed, fix)
        XCTAssertExit(try home.run("edit", String(renamed), "--rename", "lab-2"), 0)
        XCTAssertExit(try home.run("show", "lab"), 0)
        XCTAssertExit(try home.run("show", "lab-2"), 0)
        XCTAssertExit(try home.run("check"), 0)
        // Completion and scripts see names as commands take them.
        XCTAssertEqual(try home.run("list", "--names").stdout, "lab\nlab-2\n")
    }

    func testImportUpdatesTheHostOfTheSameNameIgnoringCase() throws {
        let home = TempHome()
        XCTAssertExit(try home.run("add", "web", "--host", "old.example.com"), 0)
        let config = try home.write(
            """
            Host Web
              HostName new.example.com
              User deploy
            Host WEB
              HostName other.example.com
            """, to: ".ssh/config")
        let imported = try home.run("import", "ssh-config", config)
        XCTAssertExit(imported, 0)
        XCTAssertTrue(imported.stdout.contains("updated  web"), imported.stdout)
        XCTAssertEqual(try names(home), ["web"])
        XCTAssertTrue(try home.run("show", "web").stdout.contains("deploy@new.example.com"))

        // A name already shared in the store is left alone, with the rename that lets the next import through.
        XCTAssertExit(try home.run("add", "web", "--host", "twin.example.com", "--allow-duplicate"), 0)
        let skipped = try home.run("import", "ssh-config", config)
        XCTAssertExit(skipped, 4)
        let rename = try XCTUnwrap(skipped.stdout.firstMatch(of: /sshelf edit (web@[0-9a-f]{8}) --rename NEWNAME/)?.1)
        XCTAssertExit(try home.run("edit", String(rename), "--rename", "web-twin"), 0)
        XCTAssertExit(try home.run("import", "ssh-config", config), 0)
        XCTAssertEqual(try names(home).sorted(), ["web", "web-twin"])
    }

    /// Two devices each add a `prod` (each refused nothing: the name was free there) and sync: the clash is
    /// reported by `check` and by the commands on both, and the rename `check` prints ends it everywhere.
    func testDuplicatesThatArriveBySyncAreReportedAndTheFixTravels() throws {
        let remote =
            (ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp") + "/sshelf-names-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: remote, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: remote) }
        let a = syncHome(), b = syncHome()
        XCTAssertExit(try a.run("add", "prod", "--host", "a.example"), 0)
        XCTAssertExit(try b.run("add", "prod", "--host", "b.example"), 0)
        XCTAssertExit(try a.run("sync", "enable", "--folder", remote), 0)
        XCTAssertExit(try b.run("sync", "enable", "--folder", remote), 0)  // not enrolled yet
        try enroll(b, by: a)
        XCTAssertExit(try a.run("sync", "now"), 0)
        for home in [a, b] {
            let check = try home.run("check")
            XCTAssertExit(check, 4)
            XCTAssertTrue(check.stdout.contains("2 hosts are named 'prod'"), check.stdout)
            XCTAssertTrue(check.stdout.contains("(a.example)") && check.stdout.contains("(b.example)"), check.stdout)
            XCTAssertTrue(try home.run("show", "prod").stderr.contains("2 hosts are named 'prod': prod@"))
        }
        let fix = try XCTUnwrap(
            try b.run("check").stdout.firstMatch(of: /fix: sshelf edit (prod@[0-9a-f]{8}) --rename NEWNAME/)?.1)
        XCTAssertExit(try b.run("edit", String(fix), "--rename", "prod-2"), 0)
        XCTAssertExit(try b.run("sync", "now"), 0)
        XCTAssertExit(try a.run("sync", "now"), 0)
        for home in [a, b] {
            XCTAssertExit(try home.run("check"), 0)
            XCTAssertEqual(try names(home).sorted(), ["prod", "prod-2"])
        }
    }

    private func names(_ home: TempHome) throws -> [String] {
        try hosts(home).compactMap { $0["name"] as? String }
    }

    /// Host ids by hostname.
    private func hostIDs(_ home: TempHome) throws -> [String: String] {
        Dictionary(
            try hosts(home).compactMap { host in
                (host["hostname"] as? String).flatMap { name in (host["id"] as? String).map { (name, $0) } }
            }, uniquingKeysWith: { a, _ in a })
    }

    private func hosts(_ home: TempHome) throws -> [[String: Any]] {
        let list = try home.run("list", "--json")
        return try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]], list.stdout)
    }
}
