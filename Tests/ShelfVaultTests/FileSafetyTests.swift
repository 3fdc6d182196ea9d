// FileSafetyTests: 0600/0700 whatever the umask, refusal of loose files, two writers at once, and a writer
// killed with SIGKILL inside its transaction.
import Foundation
import ShelfCore
@testable import ShelfVault
import TestSupport
import XCTest

final class FileSafetyTests: XCTestCase {
    func mode(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? nil
    }

    func testPermissionsUnderUmaskZero() throws {
        let fixture = VaultFixture()
        let result = try fixture.cli(["vault", "init"], umask: 0)
        XCTAssertEqual(result.status, 0, "\(result)")
        XCTAssertEqual(
            try fixture.cli(["vault", "passwd", "--passphrase-fd", "0"], stdin: "pass\n", umask: 0).status, 0)
        let locations = fixture.locations
        XCTAssertEqual(mode(locations.vault), 0o600)
        XCTAssertEqual(mode(locations.deviceKey), 0o600)
        XCTAssertEqual(mode(locations.dataDirectory), 0o700)
        XCTAssertEqual(mode(locations.stateDirectory), 0o700)
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: locations.vault + suffix) {
            XCTAssertEqual(mode(locations.vault + suffix), 0o600, suffix)
        }
        // Every file a vault command left anywhere under SSHELF_HOME.
        for path in FileManager.default.subpaths(atPath: fixture.home.sshelfHome) ?? [] {
            let full = fixture.home.sshelfHome + "/" + path
            XCTAssertEqual((mode(full) ?? 0o777) & 0o077, 0, full)
        }
    }

    func testLooseVaultOrDeviceKeyIsRefused() throws {
        let fixture = VaultFixture()
        try fixture.open().write(secret("x"), for: .syncKey, class: .afterFirstUnlockThisDeviceOnly)
        for path in [fixture.locations.vault, fixture.locations.deviceKey] {
            chmod(path, 0o644)
            XCTAssertThrowsError(try fixture.open()) { error in
                XCTAssertEqual((error as? VaultError)?.kind, .permissions, "\(path)")
                XCTAssertTrue((error as? VaultError)?.hint?.contains("chmod 600") == true)
            }
            let cli = try fixture.cli(["vault", "status"])
            XCTAssertEqual(cli.status, 5, "\(cli)")
            XCTAssertTrue(cli.stderr.contains("accessible by other users"), cli.stderr)
            let audit = try fixture.cli(["vault", "audit"])
            XCTAssertEqual(audit.status, 4, "\(audit)")
            XCTAssertTrue(audit.stdout.contains("loose-permissions"), audit.stdout)
            chmod(path, 0o600)
        }
        XCTAssertEqual(text(try fixture.open().read(.syncKey, class: .afterFirstUnlockThisDeviceOnly)), "x")
    }

    func testMissingDeviceKeyIsAClearErrorNotANewVault() throws {
        let fixture = VaultFixture()
        try fixture.open().write(secret("x"), for: .syncKey, class: .afterFirstUnlockThisDeviceOnly)
        try FileManager.default.removeItem(atPath: fixture.locations.deviceKey)
        XCTAssertThrowsError(try fixture.open(create: true)) { error in
            XCTAssertEqual((error as? VaultError)?.kind, .unavailable)
            XCTAssertTrue((error as? VaultError)?.message.contains("device key") == true)
        }
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: fixture.locations.deviceKey), "no replacement key was made")
    }

    func testTwoProcessesWritingAtOnceLoseNothing() throws {
        let fixture = VaultFixture()
        XCTAssertEqual(try fixture.cli(["vault", "init"]).status, 0)
        let perWriter = 15
        for writer in 0..<2 {
            for index in 0..<perWriter {
                XCTAssertEqual(
                    try fixture.cli(["add", "w\(writer)-\(index)", "--host", "h\(index).example"]).status, 0)
            }
        }
        // Two shell loops, each running set-password one host after another, at the same time.
        let binary = ProcessInfo.processInfo.environment["SSHELF_BIN"] ?? TestSupportBinary.path
        let script =
            (0..<2).map { writer in
                "(for i in $(seq 0 \(perWriter - 1)); do echo secret-\(writer)-$i | \"$B\" vault set-password "
                    + "w\(writer)-$i --secret-fd 0 >/dev/null || echo FAIL; done) &"
            }.joined(separator: "\n") + "\nwait\n"
        let process = Process()
        process.executableURL = TestTool.sh.url
        process.arguments = ["-c", script]
        var environment = fixture.home.environment
        environment["B"] = binary
        environment["SSHELF_TEST_WEAK_KDF"] = "1"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertFalse(printed.contains("FAIL"), printed)
        XCTAssertEqual(fixture.rows("SELECT count(*) FROM items").first?.first, "\(2 * perWriter)")
        XCTAssertEqual(try fixture.open().items().count, 2 * perWriter)
    }

    func testWriterKilledMidTransactionLeavesOldContentsReadable() throws {
        let fixture = VaultFixture()
        let old = ReferenceKey.hostPassword(UUID())
        let vault = try fixture.open()
        try vault.write(secret("old-value"), for: old, class: .whenUnlocked)
        for index in 0..<50 {
            try vault.write(secret("export-\(index)"), for: .hostPassword(UUID()), class: .afterFirstUnlock)
        }
        let export = try vault.export(
            passphrase: secret("exp"), log: ReleaseLog(locations: fixture.locations), destination: "test")
        XCTAssertEqual(export.count, 51)
        let exportPath = fixture.home.root + "/export.bin"
        try Data(export.file).write(to: URL(fileURLWithPath: exportPath))
        // Into a second vault that holds one other item: the import dies with SIGKILL before COMMIT.
        let target = VaultFixture()
        try target.open().write(secret("target-old"), for: .syncKey, class: .afterFirstUnlockThisDeviceOnly)
        let killed = try target.cli(
            ["vault", "import", exportPath, "--passphrase-fd", "0"], stdin: "exp\n",
            extra: ["SSHELF_TEST_SIGKILL_BEFORE_COMMIT": "1"])
        XCTAssertEqual(killed.status, 9, "the writer died by SIGKILL: \(killed)")
        let after = try target.open()
        XCTAssertEqual(
            try after.items().map(\.key), [ReferenceKey.syncKey.rawValue], "old contents, nothing half-written")
        XCTAssertEqual(text(after.read(.syncKey, class: .afterFirstUnlockThisDeviceOnly)), "target-old")
        XCTAssertEqual(target.rows("PRAGMA integrity_check").first?.first, "ok")
        // The same import without the kill: new contents, all of them.
        let imported = try target.cli(["vault", "import", exportPath, "--passphrase-fd", "0"], stdin: "exp\n")
        XCTAssertEqual(imported.status, 0, "\(imported)")
        XCTAssertEqual(try target.open().items().count, 52)
        XCTAssertEqual(text(try target.open().read(old, class: .whenUnlocked)), "old-value")
    }
}

extension FileSafetyTests {
    /// Without the test hook: kill real imports at scattered moments. Whatever moment the signal lands on, the
    /// vault must hold either none or all of the export, and pass SQLite's integrity check.
    func testImportsKilledAtScatteredMomentsAreAllOrNothing() throws {
        let source = VaultFixture()
        let vault = try source.open()
        for index in 0..<200 {
            try vault.write(secret("bulk-\(index)"), for: .hostPassword(UUID()), class: .afterFirstUnlock)
        }
        let exportPath = source.home.root + "/bulk.export"
        let export = try vault.export(
            passphrase: secret("exp"), log: ReleaseLog(locations: source.locations), destination: "test")
        try Data(export.file).write(to: URL(fileURLWithPath: exportPath))
        for round in 0..<12 {
            let target = VaultFixture()
            try target.open().write(secret("before"), for: .syncKey, class: .afterFirstUnlockThisDeviceOnly)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: TestSupportBinary.path)
            process.arguments = ["vault", "import", exportPath, "--passphrase-fd", "0"]
            var environment = target.home.environment
            environment["SSHELF_TEST_WEAK_KDF"] = "1"
            process.environment = environment
            let input = Pipe()
            process.standardInput = input
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            input.fileHandleForWriting.write(Data("exp\n".utf8))
            // The scenario, not a wait: each round lets the import run a little longer (0 to 44 ms) before the kill,
            // to land the signal at scattered moments; the assertions hold whatever moment that turns out to be.
            usleep(useconds_t(round * 4000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let count = try target.open().items().count
            XCTAssertTrue(count == 1 || count == 201, "round \(round): \(count) items")
            XCTAssertEqual(target.rows("PRAGMA integrity_check").first?.first, "ok")
            XCTAssertEqual(text(try target.open().read(.syncKey, class: .afterFirstUnlockThisDeviceOnly)), "before")
        }
    }
}

enum TestSupportBinary {
    static var path: String { TestSupport.CLI.binary }
}
