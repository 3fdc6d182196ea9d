// PostQuantumExportTests: `export ssh-config` writes `KexAlgorithms` with the post-quantum names the installed ssh has
// for a host that requires post-quantum key exchange (its own setting or a group's), as the bridge does, so `ssh -G`
// agrees; `import ssh-config` reads a post-quantum-only list back as `pq require` (round trip), a narrower
// post-quantum list is written back as it was, a classical or mixed list stays the host's option as written.
import Foundation
import TestSupport
import XCTest

final class PostQuantumExportTests: XCTestCase {
    /// What `ssh -Q kex` lists that is post-quantum, in sshelf's order (strongest first).
    private func postQuantumNames() throws -> [String] {
        let listed = try Shell.run(TestTool.ssh.path, ["-Q", "kex"]).split(separator: "\n").map(String.init)
        let order = [
            "mlkem768x25519-sha256", "mlkem1024nistp384-sha384", "mlkem768nistp256-sha256",
            "sntrup761x25519-sha512@openssh.com", "sntrup761x25519-sha512",
        ]
        let names = order.filter(listed.contains)
        guard !names.isEmpty else { throw skipped("the installed ssh has no post-quantum key exchange") }
        return names
    }

    func testExportWritesThePostQuantumListAndImportReadsItBackAsRequire() throws {
        let names = try postQuantumNames().joined(separator: ",")
        let home = TempHome()
        XCTAssertExit(try home.run("add", "web", "web.example", "--pq", "require"), 0)
        XCTAssertExit(try home.run("group", "add", "prod"), 0)
        XCTAssertExit(try home.run("add", "db", "db.example", "--group", "prod"), 0)
        XCTAssertExit(try home.run("group", "edit", "prod", "--pq", "require"), 0)
        XCTAssertExit(
            try home.run("add", "old", "old.example", "--option", "KexAlgorithms curve25519-sha256"), 0)
        let exported = try home.run("export", "ssh-config")
        XCTAssertExit(exported, 0)
        XCTAssertTrue(exported.stdout.contains("Host web\n    KexAlgorithms \(names)\n"), exported.stdout)
        XCTAssertTrue(exported.stdout.contains("Host db\n    KexAlgorithms \(names)\n"), exported.stdout)
        XCTAssertTrue(exported.stdout.contains("    KexAlgorithms curve25519-sha256\n"), exported.stdout)
        XCTAssertEqual(exported.stdout.components(separatedBy: "KexAlgorithms").count - 1, 3, exported.stdout)
        let file = try home.write(exported.stdout, to: "exported")
        for (host, kex) in [("web", names), ("db", names), ("old", "curve25519-sha256")] {
            let resolved = try Shell.run(TestTool.ssh.path, ["-F", file, "-G", host])
            XCTAssertTrue(resolved.contains("\nkexalgorithms \(kex)\n"), "\(host): \(resolved)")
        }

        // Into a fresh home: the post-quantum-only lists come back as the setting, the classical one as an option.
        let other = TempHome()
        let imported = try other.run("import", "ssh-config", file)
        XCTAssertExit(imported, 0)
        for host in ["web", "db"] {
            let json = try other.run("show", host, "--json")
            XCTAssertTrue(json.stdout.contains("\"pq\" : \"require\""), "\(host): \(json.stdout)")
            XCTAssertFalse(json.stdout.contains("KexAlgorithms"), "\(host): \(json.stdout)")
        }
        let old = try other.run("show", "old", "--json")
        XCTAssertFalse(old.stdout.contains("\"pq\""), old.stdout)
        XCTAssertTrue(old.stdout.contains("KexAlgorithms curve25519-sha256"), old.stdout)
        // The second export is the first one's hosts again: ssh reads the same key exchanges.
        let again = try other.run("export", "ssh-config")
        let second = try other.write(again.stdout, to: "again")
        for host in ["web", "db", "old"] {
            XCTAssertEqual(
                try Shell.run(TestTool.ssh.path, ["-F", second, "-G", host]).split(separator: "\n")
                    .filter { $0.hasPrefix("kexalgorithms ") },
                try Shell.run(TestTool.ssh.path, ["-F", file, "-G", host]).split(separator: "\n")
                    .filter { $0.hasPrefix("kexalgorithms ") }, host)
        }
        // Imported again into the first home: nothing changes (the setting is the line).
        let same = try home.run("import", "ssh-config", file)
        XCTAssertTrue(same.stdout.contains("0 added, 0 updated"), same.stdout)
    }

    /// A user's own post-quantum-only list, narrower than ssh's: imported as `pq require`, written back as it was (in
    /// the place of ssh's list), so `ssh -G` reads the same key exchanges before and after.
    func testANarrowerPostQuantumListIsKeptAsWritten() throws {
        _ = try postQuantumNames()
        let home = TempHome()
        let config = try home.write(
            """
            Host narrow
                HostName narrow.example
                KexAlgorithms sntrup761x25519-sha512@openssh.com
            Host mixed
                HostName mixed.example
                KexAlgorithms sntrup761x25519-sha512@openssh.com,curve25519-sha256
            """, to: "narrow-config")
        XCTAssertExit(try home.run("import", "ssh-config", config), 0)
        let narrow = try home.run("show", "narrow", "--json")
        XCTAssertTrue(narrow.stdout.contains("\"pq\" : \"require\""), narrow.stdout)
        let mixed = try home.run("show", "mixed", "--json")
        XCTAssertFalse(mixed.stdout.contains("\"pq\""), mixed.stdout)
        let exported = try home.run("export", "ssh-config")
        XCTAssertExit(exported, 0)
        XCTAssertTrue(
            exported.stdout.contains("Host narrow\n    KexAlgorithms sntrup761x25519-sha512@openssh.com\n"),
            exported.stdout)
        XCTAssertEqual(exported.stdout.components(separatedBy: "KexAlgorithms").count - 1, 2, exported.stdout)
        let file = try home.write(exported.stdout, to: "narrow-exported")
        for host in ["narrow", "mixed"] {
            XCTAssertEqual(
                try Shell.run(TestTool.ssh.path, ["-F", file, "-G", host]).split(separator: "\n")
                    .filter { $0.hasPrefix("kexalgorithms ") },
                try Shell.run(TestTool.ssh.path, ["-F", config, "-G", host]).split(separator: "\n")
                    .filter { $0.hasPrefix("kexalgorithms ") }, host)
        }
        let again = try home.run("import", "ssh-config", file)
        XCTAssertTrue(again.stdout.contains("0 added, 0 updated"), again.stdout)
    }
}
