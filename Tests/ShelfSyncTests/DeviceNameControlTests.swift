// Device names never hold a control or format character (issue 31: `sync rename` accepted U+202E): bidi overrides
// and isolates, zero-width characters and line separators are refused by `sync rename` with the character named, a
// name certificate carrying one counts for nothing and says why, and a machine name (or a joining device's claim)
// holding one joins under the name without it.
import Foundation
import ShelfCore
@testable import ShelfSync
import ShelfVault
import TestSupport
import XCTest

final class DeviceNameControlTests: XCTestCase {
    static let forbidden: [Unicode.Scalar] =
        (0x202A...0x202E).compactMap(Unicode.Scalar.init) + (0x2066...0x2069).compactMap(Unicode.Scalar.init)
        + ["\u{200B}", "\u{200E}", "\u{200F}", "\u{2028}", "\u{FEFF}", "\u{00AD}", "\u{061C}", "\u{1B}", "\u{85}"]

    func testRenameRefusesBidiAndFormatControlsWithTheCharacterNamed() throws {
        let remote = try makeFolder()
        let a = try Device("laptop"), b = try Device("desk")
        for device in [a, b] { try device.enable(folder: remote) }
        try formGroup([a, b])
        for scalar in Self.forbidden {
            let name = "cod" + String(Character(scalar)) + "exe.txt"
            XCTAssertThrowsError(try GroupInfo.rename(to: name, store: a.store, vault: a.vault)) { error in
                let hex = String(scalar.value, radix: 16, uppercase: true)
                let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
                XCTAssertTrue("\(error)".hasPrefix("a device name cannot hold \(code)"), "\(error)")
            }
            XCTAssertThrowsError(try GroupInfo.rename(b.uuid, to: name, store: a.store, vault: a.vault))
        }
        XCTAssertThrowsError(try GroupInfo.rename(to: "x\u{202E}", store: a.store, vault: a.vault)) { error in
            XCTAssertEqual(
                "\(error)",
                "a device name cannot hold U+202E (RIGHT-TO-LEFT OVERRIDE): control and format characters change "
                    + "how names are shown")
        }
        // Nothing was signed: the names are as they were on both devices after a sync.
        a.sync(); b.sync()
        XCTAssertEqual(Set(try GroupInfo.devices(b.store).map(\.name)), ["laptop", "desk"])
        // Plain names from any script still go through.
        XCTAssertNoThrow(try GroupInfo.rename(to: "ноутбук-مكتب", store: a.store, vault: a.vault))
    }

    func testANameCertificateWithAFormatControlCountsForNothingAndSaysWhy() throws {
        let g = try NameCertificateTests.Group()
        let certificate = g.name(g.b, "vm\u{2067}b", by: g.a, keys: g.aKeys)
        let roster = g.roster([certificate])
        XCTAssertEqual(roster.name(of: g.b), "vm-b")
        XCTAssertFalse(roster.accepted.contains(certificate.digest))
        XCTAssertEqual(
            roster.refusedNames[certificate.digest],
            "a device name cannot hold U+2067 (RIGHT-TO-LEFT ISOLATE): control and format characters change how "
                + "names are shown")
    }

    func testAMachineNameWithABidiOverrideJoinsWithoutIt() throws {
        let remote = try makeFolder()
        let a = try Device("lap\u{202E}top"), b = try Device("de\u{2066}sk\u{200B}")
        for device in [a, b] { try device.enable(folder: remote) }
        try formGroup([a, b])
        for device in [a, b] {
            let names = try GroupInfo.devices(device.store).map(\.name)
            XCTAssertEqual(Set(names), ["laptop", "desk"], device.name)
        }
        XCTAssertEqual(DeviceName.fitted("\u{202E}\u{202C}"), "device")
    }
}
