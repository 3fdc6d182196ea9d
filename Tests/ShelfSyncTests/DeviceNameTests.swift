// Device names: a device that joins with a name another device of the group has gets the start of its id added;
// `sync rename` is a certificate the device signs for itself, which reaches the other device through the roster,
// refuses a name another device has, and counts nowhere for membership (older versions pass over it); a rename
// signed by another device, or a revoked device's later one, changes nothing; names that match several devices
// are listed for the caller to pick.
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
    }

    /// A rename that does not verify with the device's own key, or the device's own after its revocation, names
    /// nobody anew.
    func testOnlyTheDeviceItselfRenamesIt() throws {
        let group = UUID(), founder = UUID(), other = UUID()
        let founderKeys = try XCTUnwrap(SyncCrypto.DeviceKeys(seed: SyncCrypto.randomKey()))
        let otherKeys = try XCTUnwrap(SyncCrypto.DeviceKeys(seed: SyncCrypto.randomKey()))
        let genesis = Certificate(
            group: group, signer: founder, time: 1, body: .genesis(name: "a", signingKey: founderKeys.signingPublicKey),
            keys: founderKeys)
        let add = Certificate(
            group: group, signer: founder, time: 2,
            body: .add(
                device: other, name: "b", signingKey: otherKeys.signingPublicKey,
                invite: UUID(), epochs: []), keys: founderKeys)
        let forged = Certificate(
            group: group, signer: other, time: 4,
            body: .add(
                device: other, name: "forged",
                signingKey: otherKeys.signingPublicKey,
                invite: Roster.renameInvite, epochs: []),
            keys: founderKeys)
        let roster = Roster(group: group, anchor: genesis.digest, certificates: [genesis, add, forged])
        XCTAssertEqual(roster.name(of: other), "b")
        let own = Certificate(
            group: group, signer: other, time: 5,
            body: .add(
                device: other, name: "own", signingKey: otherKeys.signingPublicKey,
                invite: Roster.renameInvite, epochs: []), keys: otherKeys)
        XCTAssertEqual(
            Roster(group: group, anchor: genesis.digest, certificates: [genesis, add, own]).name(of: other), "own")
        let revoke = Certificate(
            group: group, signer: founder, time: 6,
            body: .revoke(
                device: other, upTo: 0, upToDigest: [UInt8](repeating: 0, count: SyncCrypto.digestLength), kept: []),
            keys: founderKeys)
        XCTAssertEqual(
            Roster(group: group, anchor: genesis.digest, certificates: [genesis, add, own, revoke]).name(of: other),
            "b",
            "a revoked device's renames count only where its revoker kept them")
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
