// ReleaseLogRotationTests: the release log stays bounded — the current file is archived at its size, at most N
// archives are kept — and still verifies across every rotation, with `sshelf log verify` too; writers on many
// threads never lose or split a line while files move under them; an archive deleted, emptied, edited, swapped or
// cut at its start is found; a rotation cut short between its steps leaves a log that verifies and carries on.
import Foundation
import ShelfCore
import ShelfVault
import TestSupport
import XCTest

final class ReleaseLogRotationTests: XCTestCase {
    /// About two lines a file.
    static let small = ReleaseLogRotation(segmentBytes: 400, archives: 3)

    var fixtures: [VaultFixture] = []

    func filled(_ count: Int, rotation: ReleaseLogRotation = small) throws -> (VaultFixture, Vault, ReleaseLog) {
        let fixture = VaultFixture()
        fixtures.append(fixture)
        let vault = try fixture.open()
        let log = ReleaseLog(locations: fixture.locations, rotation: rotation)
        for number in 1...count { try log.append(ReleaseLogTests.record(number), vault: vault) }
        return (fixture, vault, log)
    }

    func files(_ log: ReleaseLog) throws -> [String] {
        let directory = (log.path as NSString).deletingLastPathComponent
        return try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter {
                $0 == "release.log" || $0.range(of: #"^release\.log\.[0-9]+$"#, options: .regularExpression) != nil
            }
            .sorted()
    }

    func size(_ path: String) throws -> Int {
        try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
    }

    func testTheLogStaysBoundedAndVerifiesAcrossRotations() throws {
        let (_, vault, log) = try filled(40)
        XCTAssertEqual(try files(log), ["release.log", "release.log.1", "release.log.2", "release.log.3"])
        for file in try files(log) {
            let path = (log.path as NSString).deletingLastPathComponent + "/" + file
            // A file is archived once it reached the size: it ends at most one line (well under 400 bytes) past it.
            XCTAssertLessThanOrEqual(try size(path), Self.small.segmentBytes + 400, "\(file) is bounded")
            XCTAssertEqual(PrivateFilesMode.of(path), 0o600, file)
        }

        let verdict = try log.verify(vault: vault)
        XCTAssertTrue(verdict.intact, "\(verdict.problems)")
        let kept = try log.entries().entries.map(\.seq)
        XCTAssertEqual(kept.last, 40)
        XCTAssertEqual(kept, Array((kept.first ?? 0)...40), "the lines kept are the newest, in order, none missing")
        XCTAssertGreaterThan(kept.first ?? 0, 1, "the oldest lines were rotated out")
        XCTAssertEqual(verdict.lines, kept.count)
        XCTAssertTrue(verdict.notes.contains { $0.contains("rotated out") }, "\(verdict.notes)")
        // The chain runs on: the first line of each newer file names the MAC of the line before it.
        XCTAssertEqual(try log.entries().entries.filter { $0.previous != nil }.count, 4)

        // The binary reads the same files: `log` shows every kept line, `log verify` passes.
        let fixture = fixtures[0]
        let shown = try fixture.cli(["log", "--json"])
        XCTAssertExit(shown, 0)
        let parsed = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(parsed.compactMap { $0["seq"] as? Int }, kept)
        let verified = try fixture.cli(["log", "verify"])
        XCTAssertExit(verified, 0)
        XCTAssertTrue(verified.stdout.contains("intact: \(kept.count) lines"), verified.stdout)
    }

    func testConcurrentWritersAcrossRotationsNeverLoseALine() throws {
        let fixture = VaultFixture()
        fixtures.append(fixture)
        _ = try fixture.open()
        let locations = fixture.locations, options = fixture.options()
        let rotation = ReleaseLogRotation(segmentBytes: 1000, archives: 200)
        let failures = ReleaseLogTests.Failures()
        DispatchQueue.concurrentPerform(iterations: 6) { writer in
            do {
                let vault = try Vault.open(locations, options: options, createIfMissing: false)
                let log = ReleaseLog(locations: locations, rotation: rotation)
                for number in 0..<15 { try log.append(ReleaseLogTests.record(writer * 100 + number), vault: vault) }
            } catch {
                failures.add("\(error)")
            }
        }
        XCTAssertEqual(failures.all, [])
        let log = ReleaseLog(locations: locations, rotation: rotation)
        XCTAssertGreaterThan(try files(log).count, 10, "the writers rotated many times")
        let verdict = try log.verify(vault: try fixture.open())
        XCTAssertTrue(verdict.intact, "\(verdict.problems)")
        XCTAssertEqual(try log.entries().entries.map(\.seq), Array(1...90), "every line, once, in order")
    }

    func testADeletedOrEmptiedArchiveIsFound() throws {
        let (_, vault, log) = try filled(40)
        let oldest = log.path + ".3"
        let saved = try XCTUnwrap(FileManager.default.contents(atPath: oldest))
        try FileManager.default.removeItem(atPath: oldest)
        var verdict = try log.verify(vault: vault)
        XCTAssertFalse(verdict.intact, "the oldest archive deleted")
        XCTAssertTrue(verdict.problems.first?.contains("were deleted") == true, "\(verdict.problems)")

        try saved.write(to: URL(fileURLWithPath: oldest))
        XCTAssertTrue(try log.verify(vault: vault).intact)
        try Data().write(to: URL(fileURLWithPath: log.path + ".2"))
        verdict = try log.verify(vault: vault)
        XCTAssertFalse(verdict.intact, "an archive between two others emptied")
        XCTAssertTrue(verdict.problems.first?.contains("removed") == true, "\(verdict.problems)")
    }

    func testAnEditedSwappedOrCutArchiveIsFound() throws {
        let (_, vault, log) = try filled(40)
        let archive = log.path + ".2"
        let original = try XCTUnwrap(FileManager.default.contents(atPath: archive))
        for index in stride(from: 0, to: original.count - 1, by: 7) {
            var changed = original
            changed[index] = changed[index] == 0x41 ? 0x42 : 0x41
            try changed.write(to: URL(fileURLWithPath: archive))
            XCTAssertFalse(
                try log.verify(vault: vault).intact, "a change at byte \(index) of release.log.2 went unnoticed")
        }
        try original.write(to: URL(fileURLWithPath: archive))
        XCTAssertTrue(try log.verify(vault: vault).intact)

        // Two archives swapped.
        let first = log.path + ".1", scratch = log.path + ".swap"
        try FileManager.default.moveItem(atPath: first, toPath: scratch)
        try FileManager.default.moveItem(atPath: archive, toPath: first)
        try FileManager.default.moveItem(atPath: scratch, toPath: archive)
        XCTAssertFalse(try log.verify(vault: vault).intact, "two archives swapped")
        try FileManager.default.moveItem(atPath: archive, toPath: scratch)
        try FileManager.default.moveItem(atPath: first, toPath: archive)
        try FileManager.default.moveItem(atPath: scratch, toPath: first)
        XCTAssertTrue(try log.verify(vault: vault).intact)

        // The first line of the oldest archive cut off (it names where the chain starts).
        let oldest = log.path + ".3"
        let oldestBytes = try XCTUnwrap(FileManager.default.contents(atPath: oldest))
        let firstBreak = try XCTUnwrap(oldestBytes.firstIndex(of: 0x0a))
        try oldestBytes[(firstBreak + 1)...].write(to: URL(fileURLWithPath: oldest))
        XCTAssertFalse(try log.verify(vault: vault).intact, "the oldest archive cut at its start")
        try oldestBytes.write(to: URL(fileURLWithPath: oldest))

        // The current file emptied: its lines were cut off the end.
        try Data().write(to: URL(fileURLWithPath: log.path))
        let verdict = try log.verify(vault: vault)
        XCTAssertTrue(verdict.problems.first?.contains("cut off the end") == true, "\(verdict.problems)")
    }

    func testARotationCutShortStillVerifiesAndCarriesOn() throws {
        let (_, vault, log) = try filled(9)
        // The state after a crash between linking the current file as `.1` and replacing it: two names, one file.
        let numbers = try files(log).compactMap { Int($0.split(separator: ".").last ?? "") }.sorted(by: >)
        for number in numbers {
            try FileManager.default.moveItem(atPath: log.path + ".\(number)", toPath: log.path + ".\(number + 1)")
        }
        XCTAssertEqual(link(log.path, log.path + ".1"), 0)
        let verdict = try log.verify(vault: vault)
        XCTAssertTrue(verdict.intact, "\(verdict.problems)")
        XCTAssertEqual(try log.entries().entries.map(\.seq).last, 9, "the file under two names is read once")

        for number in 10...14 { try log.append(ReleaseLogTests.record(number), vault: vault) }
        let after = try log.verify(vault: vault)
        XCTAssertTrue(after.intact, "\(after.problems)")
        let kept = try log.entries().entries.map(\.seq)
        XCTAssertEqual(kept, Array((kept.first ?? 0)...14))
    }
}
