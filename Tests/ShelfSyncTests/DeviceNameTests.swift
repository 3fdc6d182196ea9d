// Device names: a device that joins with a name another device of the group has gets the start of its id added;
// `sync rename` signs a name certificate (this device's name, or another's) that reaches every device through the
// roster, refuses a name another device has, and counts nowhere for membership; a tampered or forged one on the
// remote is refused and named; names that match several devices are listed for the caller to pick. The certificate's
// own rules: NameCertificateTests.
import Foundation
import ShelfCore
import ShelfStore
@testable import ShelfSync
import ShelfVault
import TestSupport
import XCTest

final class DeviceNameTests: XCTestCase {
    func names(_ device: Device) throws -> [String] { try GroupInfo.devices(device.store).map(\.name).sorted() }

    func testASecondDeviceWithTheSameNameIsToldApartAndRenameSyncs() throws {
        let remote = try makeFolder()
        let a = try Device("vm"), b = try Device("vm")
        for device in [a, b] { try device.enable(folder: remote) }
        try formGroup([a, b])
        let suffixed = "vm-" + b.id.prefix(4)
        XCTAssertEqual(try names(a), [suffixed, "vm"].sorted(), "the joining device gets the start of its id")
        XCTAssertEqual(try names(b), try names(a))

        // The name "vm" matches one device; the suffixed one the other.
        XCTAssertEqual(try GroupInfo.find("VM", in: a.store), .found(id: a.uuid, name: "vm"))
        XCTAssertEqual(try GroupInfo.find(suffixed, in: a.store), .found(id: b.uuid, name: suffixed))

        // b renames itself; the name reaches a through the roster.
        try GroupInfo.rename(to: "build-box", store: b.store, vault: b.vault)
        XCTAssertThrowsError(try GroupInfo.rename(to: "VM", store: b.store, vault: b.vault)) { error in
            XCTAssertTrue("\(error)".contains("is named 'vm' already"), "\(error)")
        }
        XCTAssertThrowsError(try GroupInfo.rename(to: "two\nlines", store: b.store, vault: b.vault))
        b.sync(); a.sync()
        XCTAssertEqual(try names(a), ["build-box", "vm"])
        XCTAssertEqual(try GroupInfo.find("build-box", in: a.store), .found(id: b.uuid, name: "build-box"))
        // A later rename wins; membership is unchanged.
        try GroupInfo.rename(to: "laptop", store: b.store, vault: b.vault)
        b.sync(); a.sync()
        XCTAssertEqual(try names(a), ["laptop", "vm"])
        let roster = try XCTUnwrap(try GroupInfo.roster(a.store))
        XCTAssertEqual(Set(roster.enrolled.keys), [a.uuid, b.uuid])
        XCTAssertEqual(roster.enrolled[b.uuid]?.addedBy, a.uuid, "who enrolled it is still the enrolling device")

        // An invite b makes now names b as the group knows it, not by its machine's name.
        let c = try Device("desk")
        try c.enable(folder: remote)
        let code = try b.invite()
        b.sync()
        XCTAssertEqual(try c.join(code).inviter, "laptop")
    }

    /// Two devices called "vm" over a real folder remote: A renames B (the one it can reach), and after a sync both
    /// show the new name, with membership, keys and who enrolled whom as they were. Then the remote's turn: A's entry
    /// carrying the next name, altered on the remote, is refused whole and named (the real one counts once it is
    /// back); a name certificate forged in A's name inside an entry signed with A's stolen key is refused with a note
    /// naming it, and B keeps its name.
    func testADeviceRenamesAnotherOverAFolderRemoteAndTamperedNamesAreRefused() throws {
        let remote = try makeFolder()
        let a = try Device("vm"), b = try Device("vm")
        for device in [a, b] { try device.enable(folder: remote) }
        try formGroup([a, b])
        let before = try XCTUnwrap(try GroupInfo.roster(b.store))

        XCTAssertEqual(
            try GroupInfo.rename(b.uuid, to: "build-box", store: a.store, vault: a.vault), "vm-" + b.id.prefix(4))
        a.sync()
        b.sync()
        XCTAssertEqual(try names(a), ["build-box", "vm"])
        XCTAssertEqual(try names(b), ["build-box", "vm"])
        XCTAssertEqual(
            try GroupInfo.devices(b.store).first { $0.thisDevice }?.name, "build-box", "B knows its new name")
        XCTAssertEqual(try GroupInfo.find("build-box", in: a.store), .found(id: b.uuid, name: "build-box"))
        let after = try XCTUnwrap(try GroupInfo.roster(b.store))
        XCTAssertEqual(Set(after.enrolled.keys), [a.uuid, b.uuid])
        for device in [a.uuid, b.uuid] {
            XCTAssertEqual(after.enrolled[device]?.signingKey, before.enrolled[device]?.signingKey)
            XCTAssertEqual(after.enrolled[device]?.addedBy, before.enrolled[device]?.addedBy)
            XCTAssertEqual(after.enrolled[device]?.certificate, before.enrolled[device]?.certificate)
        }
        XCTAssertTrue(after.revoked.isEmpty)
        XCTAssertEqual(after.epochs, before.epochs)

        // A's entry with the next name, one bit flipped inside its sealed roster section (the name certificate).
        try GroupInfo.rename(b.uuid, to: "laptop", store: a.store, vault: a.vault)
        a.sync()
        let seq = try XCTUnwrap(try FolderRemote(path: remote).entries(of: a.id).last)
        let url = URL(fileURLWithPath: RemoteLayout(root: remote).entryPath(a.id, seq))
        let real = try Data(contentsOf: url)
        var altered = real
        altered[EntryHeader.size + 4 + 40] ^= 1
        try altered.write(to: url)
        let refused = b.sync(expect: .localFallback)
        XCTAssertEqual(
            refused.reason, "tampered entry \(seq) from vm (\(a.id.prefix(8))): its signature does not verify")
        XCTAssertEqual(try names(b), ["build-box", "vm"])
        try real.write(to: url)
        b.sync()
        XCTAssertEqual(try names(b), ["laptop", "vm"])

        // A name certificate claiming A as its signer, not signed with A's key, in an entry signed with A's key.
        let forger = try Forger(a)
        let stranger = try Forger.strangerKeys()
        let forged = Certificate(
            group: forger.group, signer: a.uuid, time: 9_999_999_999_999,
            body: Certificate.naming(b.uuid, as: "evil", signer: a.uuid, key: try a.keys().signingPublicKey),
            keys: stranger)
        let next = seq + 1
        try forger.write(
            records: [], seq: next, device: a.id, previous: SyncCrypto.digest(Array(real)), certificates: [forged])
        let noted = b.sync()
        XCTAssertTrue(
            noted.skipped.contains(
                "entry \(next) from vm (\(a.id.prefix(8))) carries a name certificate for laptop (\(b.id.prefix(8))) "
                    + "signed as vm (\(a.id.prefix(8))), refused: it does not verify with its signer's key (forged or "
                    + "altered)"
            ), "\(noted.skipped)")
        XCTAssertEqual(try names(b), ["laptop", "vm"])
        XCTAssertEqual(Set(try XCTUnwrap(try GroupInfo.roster(b.store)).enrolled.keys), [a.uuid, b.uuid])
    }

    /// A group from before names were told apart (two devices called "vm"): the name matches both, and the lookup
    /// lists each with its id's start, which alone picks one.
    func testANameSeveralDevicesHaveIsListedWithTheirIds() throws {
        let device = try Device("vm")
        let group = UUID(), first = UUID(), second = UUID()
        let keys = try XCTUnwrap(SyncCrypto.DeviceKeys(seed: SyncCrypto.randomKey()))
        let secondKeys = try XCTUnwrap(SyncCrypto.DeviceKeys(seed: SyncCrypto.randomKey()))
        let genesis = Certificate(
            group: group, signer: first, time: 1, body: .genesis(name: "vm", signingKey: keys.signingPublicKey),
            keys: keys)
        let add = Certificate(
            group: group, signer: first, time: 2,
            body: .add(
                device: second, name: "vm", signingKey: secondKeys.signingPublicKey,
                invite: UUID(), epochs: []), keys: keys)
        try device.store.write { store in
            try GroupState(group: group, anchor: genesis.digest).save(store)
            for certificate in [genesis, add] {
                try store.addCertificate(
                    StoredCertificate(
                        digest: certificate.digest.hex, body: certificate.bytes.hex, mine: false, published: 1))
            }
        }
        guard case .ambiguous(let listed) = try GroupInfo.find("vm", in: device.store) else {
            return XCTFail("expected two matches")
        }
        XCTAssertEqual(Set(listed), ["vm (\(first.lowerText.prefix(8)))", "vm (\(second.lowerText.prefix(8)))"])
        XCTAssertEqual(
            try GroupInfo.find(String(second.lowerText.prefix(6)), in: device.store), .found(id: second, name: "vm"))
        XCTAssertEqual(try GroupInfo.find("vm-nope", in: device.store), .notFound)
    }
}
