// A quiet group writes nothing (issue 33): once every device has synced what there is, another sync sends nothing,
// writes no entry and leaves no local change counted as not sent — also after B edits a host's user and A then
// edits its tags (or port, or aliases), the order that once made a device resend one record on every sync for ever.
import Foundation
import ShelfCore
import ShelfStore
@testable import ShelfSync
import TestSupport
import XCTest

final class QuietGroupTests: XCTestCase {
    func testAnotherDevicesLaterEditDoesNotKeepThisDevicesChangeInTheOutbox() throws {
        for edit in ["tags", "port", "aliases"] {
            let remote = try makeFolder()
            let a = try Device("a"), b = try Device("b"), c = try Device("c")
            for device in [a, b, c] { try device.enable(folder: remote) }
            let host = try a.add("h2")
            try formGroup([a, b, c])
            try b.edit(host.id) { $0.user = "bob" }
            try a.edit(host.id) {
                switch edit {
                case "tags": $0.tags = ["prod"]
                case "port": $0.port = 2200
                default: $0.aliases = ["web"]
                }
            }
            for _ in 0..<3 { for device in [a, b, c] { device.sync() } }
            let entries = files(under: remote).filter { $0.hasSuffix(".entry") }.count
            for _ in 0..<5 {
                for device in [a, b, c] {
                    let report = device.sync()
                    XCTAssertEqual(report.pushed, 0, "\(edit): \(device.name) sent again")
                    XCTAssertEqual(
                        try device.store.outboxCount(), 0, "\(edit): \(device.name) counts a change not sent")
                }
            }
            XCTAssertEqual(files(under: remote).filter { $0.hasSuffix(".entry") }.count, entries, "\(edit)")
            XCTAssertEqual(try a.host("h2")?.user, "bob", edit)
            XCTAssertEqual(try a.state(), try b.state(), edit)
            XCTAssertEqual(try a.state(), try c.state(), edit)
        }
    }
}
