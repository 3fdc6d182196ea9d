// import/export ssh-config through the real binary: the source file is only read, re-import updates instead
// of duplicating, and the exported file is parsed by the real `ssh -G` to the same hostname, user and port.
import Foundation
import TestSupport
import XCTest

final class ImportExportTests: XCTestCase {
    let config = """
        # Work hosts
        Include conf.d/*
        Host web1 web2
            HostName %h.example.com
            User deploy
        Host db
            HostName = 10.0.0.5
            Port 2222
            User "postgres"
            IdentityFile ~/.ssh/id_ed25519
            ProxyJump bastion
            LocalForward 5432 localhost:5432
            DynamicForward 1080
        Host legacy
            ProxyJump someone@elsewhere.example:2200
            ProxyCommand nc %h %p
        Host v6
            HostName 2001:db8::10
        Host *.corp
            User corp
        Match host x
            User m
        Host broken
            Port 70000
        """

    func prepare(_ home: TempHome) throws -> String {
        _ = try home.write("Host bastion\n  HostName bastion.example.com\n  User jump\n", to: ".ssh/conf.d/bastion")
        _ = try home.write(
            "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBQ8y1Fz5v4Qv3Oj0V8wL4l8F3N1t4x6hM5kq7m2b0aa me@laptop\n",
            to: ".ssh/id_ed25519.pub")
        return try home.write(config, to: ".ssh/config")
    }

    func testImportIsCompleteIdempotentAndReadOnly() throws {
        let home = TempHome()
        let path = try prepare(home)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let attributes = try FileManager.default.attributesOfItem(atPath: path)

        let first = try home.run("import", "ssh-config")
        XCTAssertExit(first, 4)  // `broken` could not be imported; everything else was
        XCTAssertTrue(
            first.stdout.contains("6 added, 0 updated, 0 unchanged, 0 skipped, 1 not imported because of errors"),
            first.stdout)
        XCTAssertTrue(first.stdout.contains("options of 1 Host pattern kept as defaults"), first.stdout)
        // One word for the pattern: kept as defaults, never also "skipped".
        XCTAssertTrue(
            first.stdout.contains("  kept as defaults  \(path):19: Host pattern '*.corp': its options apply"),
            first.stdout)
        XCTAssertFalse(first.stdout.split(separator: "\n").contains { $0.contains("skipped") && $0.contains("*.corp") })
        // `Match host x` is decided for each name (no host's HostName is x): nothing skipped, nothing noted.
        XCTAssertFalse(first.stdout.contains("Match"), first.stdout)
        XCTAssertTrue(first.stdout.contains("config:24: host 'broken' skipped: Port '70000'"), first.stdout)
        XCTAssertFalse(
            first.stdout.contains("ProxyCommand"), "kept as an option (ProxyJump came first and wins): \(first.stdout)")
        XCTAssertTrue(first.stdout.contains("1 identity added, 2 forward rules added"), first.stdout)

        let db = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(try home.run("show", "db", "--json").stdout.utf8)) as? [String: Any]
        )
        XCTAssertEqual(db["hostname"] as? String, "10.0.0.5")
        XCTAssertEqual(db["port"] as? Int, 2222)
        XCTAssertEqual(db["identityName"] as? String, "id_ed25519")
        XCTAssertEqual((db["jumpHostIDs"] as? [String])?.count, 1)
        XCTAssertEqual((db["forwards"] as? [Any])?.count, 2)
        let legacy = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(try home.run("show", "legacy", "--json").stdout.utf8))
                as? [String: Any])
        XCTAssertEqual(legacy["unresolvedJump"] as? String, "someone@elsewhere.example:2200")
        XCTAssertEqual(legacy["options"] as? [String], ["ProxyCommand nc %h %p"])
        XCTAssertTrue(try home.run("identity", "list").stdout.contains("ed25519"))

        let second = try home.run("import", "ssh-config", path)
        XCTAssertTrue(second.stdout.contains("0 added, 0 updated, 6 unchanged"), second.stdout)
        let hosts = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(try home.run("list", "--json").stdout.utf8)) as? [Any])
        XCTAssertEqual(hosts.count, 6)
        XCTAssertEqual(try home.run("forward", "list").stdout.split(separator: "\n").count, 3)
        // The source was only read: same bytes, same modification time.
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before)
        let after = try FileManager.default.attributesOfItem(atPath: path)
        XCTAssertEqual(after[.modificationDate] as? Date, attributes[.modificationDate] as? Date)

        // A changed file updates in place.
        _ = try home.write(config.replacingOccurrences(of: "Port 2222", with: "Port 2223"), to: ".ssh/config")
        let third = try home.run("import", "ssh-config")
        XCTAssertTrue(third.stdout.contains("0 added, 1 updated"), third.stdout)
        XCTAssertTrue(try home.run("show", "db").stdout.contains("10.0.0.5:2223"))
    }

    func testDryRunWritesNothing() throws {
        let home = TempHome()
        _ = try prepare(home)
        let dry = try home.run("import", "ssh-config", "--dry-run")
        // The dry run predicts the real import's exit status: `broken` would not be imported (4).
        XCTAssertExit(dry, 4)
        XCTAssertTrue(dry.stdout.contains("1 not imported because of errors"), dry.stdout)
        XCTAssertTrue(dry.stdout.hasPrefix("dry run, nothing written: "), dry.stdout)
        XCTAssertTrue(dry.stdout.contains("6 added"), dry.stdout)
        XCTAssertEqual(try home.run("list", "--json").stdout.trimmingCharacters(in: .whitespacesAndNewlines), "[\n\n]")
    }

    func testMalformedConfigIsRejectedWithItsLine() throws {
        let home = TempHome()
        let path = try home.write("Host ok\n  HostName ok\nHost bad\n  User \"open\n", to: "cfg")
        let result = try home.run("import", "ssh-config", path)
        XCTAssertExit(result, 4)
        XCTAssertTrue(result.stderr.contains("cfg:4: unterminated quote"), result.stderr)
        XCTAssertTrue(result.stderr.contains("nothing was imported"), result.stderr)
        let binary = try home.write("", to: "bin")
        try Data([0x48, 0x6f, 0x73, 0x74, 0x20, 0xff, 0xfe, 0x00]).write(to: URL(fileURLWithPath: binary))
        let bad = try home.run("import", "ssh-config", binary)
        XCTAssertExit(bad, 4)
        XCTAssertTrue(bad.stderr.contains("not UTF-8 text"), bad.stderr)
    }

    func testExportIsParsedBySSHToTheSameValues() throws {
        let home = TempHome()
        _ = try prepare(home)
        XCTAssertExit(try home.run("import", "ssh-config"), 4)
        XCTAssertExit(
            try home.run(
                "add", "spaced", "--host", "s.example", "--user", "u1", "--port", "2022",
                "--group", "team a/sub"), 0)
        let exported = try home.run("export", "ssh-config", "--output", home.root + "/exported")
        XCTAssertExit(exported, 0)
        let mode = try FileManager.default.attributesOfItem(atPath: home.root + "/exported")[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600)
        XCTAssertExit(try home.run("export", "ssh-config", "--output", home.root + "/exported"), 2)

        let expected: [(String, String, String, String)] = [
            ("web1", "web1.example.com", "deploy", "22"), ("db", "10.0.0.5", "postgres", "2222"),
            ("v6", "2001:db8::10", "", "22"), ("bastion", "bastion.example.com", "jump", "22"),
            ("spaced", "s.example", "u1", "2022"),
        ]
        for (alias, hostname, user, port) in expected {
            let resolved = try ssh(["-G", "-F", home.root + "/exported", alias], home: home)
            XCTAssertTrue(resolved.contains("\nhostname \(hostname)\n"), "\(alias): \(resolved)")
            XCTAssertTrue(resolved.contains("\nport \(port)\n"), "\(alias): \(resolved)")
            if !user.isEmpty {
                XCTAssertTrue(
                    resolved.hasPrefix("user \(user)\n") || resolved.contains("\nuser \(user)\n"),
                    "\(alias): \(resolved)")
            }
        }
        let db = try ssh(["-G", "-F", home.root + "/exported", "db"], home: home)
        XCTAssertTrue(db.contains("\nproxyjump bastion\n"), "by alias: bastion is in the same file\n\(db)")
        XCTAssertTrue(db.contains("\nlocalforward [127.0.0.1]:5432 [localhost]:5432\n"), db)
        XCTAssertTrue(db.contains("\nidentityfile ~/.ssh/id_ed25519\n"), db)
    }

    func ssh(_ arguments: [String], home: TempHome) throws -> String {
        let process = Process()
        process.executableURL = TestTool.ssh.url
        process.arguments = arguments
        process.environment = ["HOME": home.home]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, errors)
        return String(decoding: data, as: UTF8.self)
    }
}
