// ReleaseLogTests: the hash-chained release log on disk — verify passes on an untouched log and fails after any
// edited byte, a removed line, two swapped lines, a cut-off end, a deleted head or log; writers on many threads
// (each with its own descriptor, as separate processes would be) never interleave; the file is 0600; the log key
// is device-only and created once even when two writers race.
import Foundation
import ShelfCore
import ShelfVault
import TestSupport
import XCTest

final class ReleaseLogTests: XCTestCase {
    static func record(_ number: Int) -> ReleaseEntry {
        ReleaseEntry(
            what: "password", item: "host.\(UUID().uuidString.lowercased()).password", by: "connect",
            host: "web\(number)")
    }

    /// Fixtures live until the test ends (their folder goes with them).
    var fixtures: [VaultFixture] = []

    func filled(_ count: Int) throws -> (VaultFixture, Vault, ReleaseLog) {
        let fixture = VaultFixture()
        fixtures.append(fixture)
        let vault = try fixture.open()
        let log = ReleaseLog(locations: fixture.locations)
        for number in 1...count { try log.append(Self.record(number), vault: vault) }
        return (fixture, vault, log)
    }

    func lines(_ log: ReleaseLog) throws -> [String] {
        try String(contentsOfFile: log.path, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    func write(_ lines: [String], _ log: ReleaseLog) throws {
        try (lines.joined(separator: "\n") + "\n").write(toFile: log.path, atomically: false, encoding: .utf8)
    }

    func testAnUntouchedLogVerifiesAndShowsEveryLine() throws {
        let (fixture, vault, log) = try filled(5)
        let verdict = try log.verify(vault: vault)
        XCTAssertTrue(verdict.intact, "\(verdict.problems)")
        XCTAssertEqual(verdict.lines, 5)
        let shown = try log.entries()
        XCTAssertEqual(shown.entries.map(\.seq), [1, 2, 3, 4, 5])
        XCTAssertEqual(shown.entries.map { $0.host ?? "" }, ["web1", "web2", "web3", "web4", "web5"])
        XCTAssertEqual(shown.damaged, 0)
        XCTAssertEqual(PrivateFilesMode.of(log.path), 0o600)
        XCTAssertEqual(PrivateFilesMode.of(log.headPath), 0o600)
        XCTAssertEqual(fixture.classOf(.logKey), "afterFirstUnlockThisDeviceOnly")
    }

    func testALogLongerThanTheTailWindowKeepsItsChain() throws {
        // Appends read only the last 64 KiB: past that size the chain must still link up.
        let (_, vault, log) = try filled(400)
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: log.path)[.size] as? Int)
        XCTAssertGreaterThan(size, 64 * 1024)
        let verdict = try log.verify(vault: vault)
        XCTAssertTrue(verdict.intact, "\(verdict.problems)")
        XCTAssertEqual(verdict.lines, 400)
    }

    /// A FIFO in the log's (or the head's) place is refused at once, never a `log verify` or `log` that waits for a
    /// writer. The call runs on its own thread; a wait past the deadline is failed and then released by opening the
    /// FIFO for writing.
    func testAFIFOInPlaceOfTheLogIsRefusedAtOnce() throws {
        let (_, vault, log) = try filled(2)
        for path in [log.headPath, log.path] {
            try FileManager.default.removeItem(atPath: path)
            XCTAssertEqual(mkfifo(path, 0o600), 0)
            final class Outcome: @unchecked Sendable { var verdict: Result<ReleaseLogVerdict, ReleaseLogError>? }
            let outcome = Outcome()
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                outcome.verdict = Result { () throws(ReleaseLogError) in try log.verify(vault: vault) }
                done.signal()
            }
            if done.wait(timeout: .now() + Deadline.scaled(10)) == .timedOut {
                let writer = open(path, O_WRONLY | O_NONBLOCK)
                _ = done.wait(timeout: .now() + 5)
                if writer >= 0 { close(writer) }
                XCTFail("verify waited on a FIFO at \(path)")
                return
            }
            switch outcome.verdict {
            case .success(let verdict): XCTAssertFalse(verdict.intact, "a FIFO as \(path) verified as intact")
            case .failure(let error): XCTAssertTrue(error.message.contains("FIFO"), error.message)
            case nil: XCTFail("no outcome")
            }
        }
        XCTAssertThrowsError(try log.entries(), "'sshelf log' refuses the FIFO too")
    }

    func testEveryEditedByteIsFound() throws {
        let (_, vault, log) = try filled(3)
        let original = try XCTUnwrap(FileManager.default.contents(atPath: log.path))
        // Every byte of the middle line, the newline before it included, changed one at a time.
        let start = try XCTUnwrap(original.firstIndex(of: 0x0a))
        let end = try XCTUnwrap(original[(start + 1)...].firstIndex(of: 0x0a))
        for index in start..<end {
            var changed = original
            changed[index] = changed[index] == 0x41 ? 0x42 : 0x41
            try changed.write(to: URL(fileURLWithPath: log.path))
            XCTAssertFalse(try log.verify(vault: vault).intact, "a change at byte \(index) went unnoticed")
        }
        try original.write(to: URL(fileURLWithPath: log.path))
        XCTAssertTrue(try log.verify(vault: vault).intact)
    }

    func testARemovedLineIsFound() throws {
        let (_, vault, log) = try filled(4)
        var kept = try lines(log)
        kept.remove(at: 1)
        try write(kept, log)
        let verdict = try log.verify(vault: vault)
        XCTAssertFalse(verdict.intact)
        XCTAssertTrue(verdict.problems.first?.contains("removed or reordered") == true, "\(verdict.problems)")
    }

    func testTwoSwappedLinesAreFound() throws {
        let (_, vault, log) = try filled(4)
        var swapped = try lines(log)
        swapped.swapAt(1, 2)
        try write(swapped, log)
        XCTAssertFalse(try log.verify(vault: vault).intact)
    }

    func testACutOffEndIsFound() throws {
        let (_, vault, log) = try filled(4)
        try write(Array(try lines(log).prefix(3)), log)
        let verdict = try log.verify(vault: vault)
        XCTAssertFalse(verdict.intact)
        XCTAssertTrue(verdict.problems.first?.contains("cut off the end") == true, "\(verdict.problems)")

        // A head record rewritten to match needs the key; an edited one is found.
        let head = try String(contentsOfFile: log.headPath, encoding: .utf8)
        try head.replacingOccurrences(of: "4 ", with: "3 ").write(
            toFile: log.headPath, atomically: true, encoding: .utf8)
        XCTAssertTrue(try log.verify(vault: vault).problems.first?.contains("head record") == true)
    }

    func testDeletingTheHeadOrTheWholeLogIsFound() throws {
        let (_, vault, log) = try filled(2)
        try FileManager.default.removeItem(atPath: log.headPath)
        XCTAssertFalse(try log.verify(vault: vault).intact, "without its head a cut-off end cannot be ruled out")
        try FileManager.default.removeItem(atPath: log.path)
        let verdict = try log.verify(vault: vault)
        XCTAssertFalse(verdict.intact)
        XCTAssertTrue(verdict.problems.first?.contains("deleted") == true, "\(verdict.problems)")
    }

    func testAnotherVaultsKeyCannotRebuildTheChain() throws {
        let (_, vault, log) = try filled(2)
        let contents = try XCTUnwrap(FileManager.default.contents(atPath: log.path))
        let head = try XCTUnwrap(FileManager.default.contents(atPath: log.headPath))
        // An attacker with their own vault writes a whole new log in its place.
        let (_, otherVault, otherLog) = try filled(2)
        XCTAssertTrue(try otherLog.verify(vault: otherVault).intact)
        try FileManager.default.removeItem(atPath: log.path)
        try FileManager.default.removeItem(atPath: log.headPath)
        try FileManager.default.copyItem(atPath: otherLog.path, toPath: log.path)
        try FileManager.default.copyItem(atPath: otherLog.headPath, toPath: log.headPath)
        XCTAssertFalse(try log.verify(vault: vault).intact)
        try contents.write(to: URL(fileURLWithPath: log.path))
        try head.write(to: URL(fileURLWithPath: log.headPath))
        XCTAssertTrue(try log.verify(vault: vault).intact)
    }

    func testConcurrentWritersNeverInterleave() throws {
        let fixture = VaultFixture()
        let locations = fixture.locations
        _ = try fixture.open()
        let options = fixture.options()
        let writers = 6
        let each = 15
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: writers) { writer in
            do {
                // Each writer its own Vault (own SQLite connection) and its own log descriptor, like a process.
                let vault = try Vault.open(locations, options: options, createIfMissing: false)
                let log = ReleaseLog(locations: locations)
                for number in 0..<each { try log.append(Self.record(writer * 100 + number), vault: vault) }
            } catch {
                failures.add("\(error)")
            }
        }
        XCTAssertEqual(failures.all, [])
        let vault = try fixture.open()
        let log = ReleaseLog(locations: locations)
        let verdict = try log.verify(vault: vault)
        XCTAssertTrue(verdict.intact, "\(verdict.problems)")
        XCTAssertEqual(verdict.lines, writers * each)
        XCTAssertEqual(fixture.rows("SELECT count(*) FROM items WHERE key = 'log.key'").first?.first, "1")
    }

    func testALockedVaultCannotLogSoNothingIsReleased() throws {
        let fixture = VaultFixture()
        let vault = try fixture.open()
        try vault.setPassphrase(SecretBytes(Array("pass".utf8)), current: nil)
        let locked = try fixture.open()
        let log = ReleaseLog(locations: fixture.locations)
        XCTAssertThrowsError(try log.append(Self.record(1), vault: locked))
        XCTAssertNil(PrivateFilesMode.of(log.path), "nothing was written")
        try locked.unlock(passphrase: SecretBytes(Array("pass".utf8)))
        try log.append(Self.record(1), vault: locked)
        XCTAssertTrue(try log.verify(vault: locked).intact)
    }

    func testAnExportLogsEveryItemThatLeaves() throws {
        let fixture = VaultFixture()
        fixtures.append(fixture)
        let vault = try fixture.open()
        let leaving = ReferenceKey.hostPassword(UUID())
        try vault.write(secret("may leave"), for: leaving, class: .afterFirstUnlock)
        try vault.write(secret("stays"), for: .hostPassword(UUID()), class: .whenUnlockedThisDeviceOnly)
        let log = ReleaseLog(locations: fixture.locations)
        let exported = try vault.export(passphrase: secret("exp"), log: log, destination: "/tmp/out")
        XCTAssertEqual(exported.keys, [leaving.rawValue])
        let lines = try log.entries().entries
        XCTAssertEqual(
            lines.map(\.item), [leaving.rawValue], "one line per item that left, none for the one that stayed")
        XCTAssertEqual(lines.first?.by, "vault export")
        XCTAssertEqual(lines.first?.what, "password")
        XCTAssertTrue(try log.verify(vault: vault).intact)
    }

    final class Failures: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func add(_ line: String) { lock.withLock { lines.append(line) } }
        var all: [String] { lock.withLock { lines } }
    }
}

enum PrivateFilesMode {
    static func of(_ path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : nil
    }
}
