// The sync status file's own words beside the state, as the TUI reads them: conflicts not looked at yet, a device
// waiting to be enrolled or revoked, the credential track's notice — each optional, so an older report adds nothing.
import Foundation
@testable import ShelfTUIApp
import ShelfCore
import ShelfUI
import TestSupport
import XCTest

final class SyncFileNotesTests: XCTestCase {
    private func notes(_ json: String) throws -> [SyncNote] {
        let home = TempHome()
        let locations = DataLocations.resolve(environment: home.environment)
        try FileManager.default.createDirectory(atPath: locations.stateDirectory, withIntermediateDirectories: true)
        try json.write(toFile: locations.stateDirectory + "/sync-status.json", atomically: true, encoding: .utf8)
        return SyncFileNotes.read(locations)
    }

    func testTheReportsFieldsBecomeNotesInOrderOfWeight() throws {
        let read = try notes(
            """
            {"state": "localFallback", "at": "2026-11-30T22:00:00Z", "reason": "not enrolled", "conflicts": 2,
             "membership": "waiting", "notice": "credentials not joined on this device"}
            """)
        XCTAssertEqual(
            read,
            [
                SyncNote("waiting to be enrolled by another device", .warning),
                SyncNote("2 merge conflicts: C lists them", .warning),
                SyncNote("credentials not joined on this device", .info),
            ])
        XCTAssertEqual(
            try notes(#"{"state": "localFallback", "membership": "revoked", "conflicts": 1}"#),
            [
                SyncNote("this device was revoked from the sync group", .error),
                SyncNote("1 merge conflict: C lists them", .warning),
            ])
    }

    func testAReportWithoutTheFieldsOrNoReportAddsNothing() throws {
        XCTAssertEqual(try notes(#"{"state": "synced", "at": "2026-11-30T22:00:00Z", "pulled": 0, "pushed": 1}"#), [])
        XCTAssertEqual(try notes(#"{"state": "synced", "membership": "member", "conflicts": 0}"#), [])
        XCTAssertEqual(try notes("not json"), [])
        XCTAssertEqual(SyncFileNotes.read(DataLocations.resolve(environment: TempHome().environment)), [])
    }

    func testControlCharactersInANoticeNeverReachTheScreen() throws {
        let read = try notes(#"{"notice": "bad\u001b[31mred"}"#)
        XCTAssertEqual(read.count, 1)
        XCTAssertFalse(read[0].text.contains("\u{1b}"), read[0].text)
    }
}
