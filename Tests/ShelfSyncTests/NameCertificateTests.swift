// NameCertificateTests: the roster's name certificate on its own — any member in good standing names any device of
// the group; a forged one, one from a device outside the group, one signed after the signer's revocation, one with
// a key that is not its signer's, and one naming a device outside the group count for nothing and say why; a
// certificate seen again (replayed) or an older one arriving late never takes a newer name back; two devices
// renamed to one name at once stay apart; and no name certificate touches membership, keys or epochs.
import Foundation
@testable import ShelfSync
import ShelfVault
import XCTest

final class NameCertificateTests: XCTestCase {
    /// A group of three: `a` made it and added `b` and `c`.
    struct Group {
        let id = UUID()
        let a = UUID(), b = UUID(), c = UUID()
        let aKeys: SyncCrypto.DeviceKeys, bKeys: SyncCrypto.DeviceKeys, cKeys: SyncCrypto.DeviceKeys
        let genesis: Certificate, addB: Certificate, addC: Certificate

        init() throws {
            func keys() throws -> SyncCrypto.DeviceKeys {
                try XCTUnwrap(SyncCrypto.DeviceKeys(seed: SyncCrypto.randomKey()))
            }
            (aKeys, bKeys, cKeys) = (try keys(), try keys(), try keys())
            genesis = Certificate(
                group: id, signer: a, time: 1, body: .genesis(name: "vm", signingKey: aKeys.signingPublicKey),
                keys: aKeys)
            addB = Certificate(
                group: id, signer: a, time: 2,
                body: .add(device: b, name: "vm-b", signingKey: bKeys.signingPublicKey, invite: UUID(), epochs: []),
                keys: aKeys)
            addC = Certificate(
                group: id, signer: a, time: 3,
                body: .add(device: c, name: "vm-c", signingKey: cKeys.signingPublicKey, invite: UUID(), epochs: []),
                keys: aKeys)
        }

        /// `signer` (signing with `keys`, claiming `key` as its own) names `device`.
        func name(
            _ device: UUID, _ name: String, by signer: UUID, keys: SyncCrypto.DeviceKeys, key: [UInt8]? = nil,
            time: Int64 = 10
        ) -> Certificate {
            Certificate(
                group: id, signer: signer, time: time,
                body: Certificate.naming(device, as: name, signer: signer, key: key ?? keys.signingPublicKey),
                keys: keys)
        }

        func roster(_ extra: [Certificate]) -> Roster {
            Roster(group: id, anchor: genesis.digest, certificates: [genesis, addB, addC] + extra)
        }

        func revoke(_ device: UUID, by signer: UUID, keys: SyncCrypto.DeviceKeys, kept: [[UInt8]]) -> Certificate {
            Certificate(
                group: id, signer: signer, time: 20,
                body: .revoke(
                    device: device, upTo: 0, upToDigest: [UInt8](repeating: 0, count: SyncCrypto.digestLength),
                    kept: kept),
                keys: keys)
        }
    }

    func testAnyMemberNamesAnotherDeviceAndNothingElseChanges() throws {
        let g = try Group()
        let before = g.roster([])
        let named = g.name(g.b, "build-box", by: g.c, keys: g.cKeys)
        let after = g.roster([named])
        XCTAssertEqual(after.name(of: g.b), "build-box")
        XCTAssertTrue(after.accepted.contains(named.digest))
        XCTAssertNil(after.refusedNames[named.digest])
        // Membership, keys, who added whom, invites and epochs are what they were.
        XCTAssertEqual(Set(after.enrolled.keys), Set(before.enrolled.keys))
        for device in [g.a, g.b, g.c] {
            var expected = try XCTUnwrap(before.enrolled[device])
            if device == g.b { expected.name = "build-box" }
            XCTAssertEqual(after.enrolled[device], expected)
        }
        XCTAssertEqual(after.spentInvites, before.spentInvites)
        XCTAssertEqual(after.epochs, before.epochs)
        XCTAssertEqual(after.revoked, before.revoked)

        // On the wire it is an `add` the signer makes of itself, naming the device in the invite field: every sshelf
        // parses it, and none counts it for membership (an add enrolls a device not yet in the roster).
        XCTAssertEqual(
            try Certificate(parsing: named.bytes).body,
            .add(device: g.c, name: "build-box", signingKey: g.cKeys.signingPublicKey, invite: g.b, epochs: []))
        // A device naming itself writes the nil invite id, as self-renames always were, so those keep counting.
        let own = g.name(g.b, "laptop", by: g.b, keys: g.bKeys)
        XCTAssertEqual(
            own.body,
            .add(
                device: g.b, name: "laptop", signingKey: g.bKeys.signingPublicKey, invite: Roster.renameInvite,
                epochs: []))
        XCTAssertEqual(g.roster([own]).name(of: g.b), "laptop")
    }

    func testRefusedNameCertificatesCountForNothingAndSayWhy() throws {
        let g = try Group()
        let strangerKeys = try XCTUnwrap(SyncCrypto.DeviceKeys(seed: SyncCrypto.randomKey()))
        let stranger = UUID()
        // Forged: claims `a` as its signer, signed with another key (and the same with a's key in the body).
        let forged = g.name(g.b, "forged", by: g.a, keys: strangerKeys)
        let forgedKeyField = g.name(g.b, "forged-key", by: g.a, keys: strangerKeys, key: g.aKeys.signingPublicKey)
        // The signer's key, but another key in the certificate's key field.
        let wrongKey = g.name(g.b, "wrong-key", by: g.a, keys: g.aKeys, key: g.bKeys.signingPublicKey)
        // A device that is not in the group, signing with its own key.
        let outsider = g.name(g.b, "outsider", by: stranger, keys: strangerKeys)
        // Naming a device that is not in the group.
        let nobody = g.name(stranger, "nobody", by: g.a, keys: g.aKeys)
        let cases: [(Certificate, String)] = [
            (forged, "it does not verify with its signer's key (forged or altered)"),
            (forgedKeyField, "it does not verify with its signer's key (forged or altered)"),
            (wrongKey, "it does not verify with its signer's key (forged or altered)"),
            (outsider, "its signer is not a member of the group"),
            (nobody, "the device it names is not in the group"),
        ]
        for (certificate, why) in cases {
            let roster = g.roster([certificate])
            XCTAssertEqual(roster.name(of: g.b), "vm-b", why)
            XCTAssertEqual(roster.refusedNames[certificate.digest], why)
            XCTAssertFalse(roster.accepted.contains(certificate.digest))
            XCTAssertNil(roster.enrolled[stranger])
        }
    }

    /// A revoked signer's name certificates count only where its revoker kept them (had accepted them before the
    /// revocation), as its additions do: a stolen key cannot rename devices after the revocation.
    func testASignerRevokedBeforeSigningNamesNobody() throws {
        let g = try Group()
        let late = g.name(g.b, "stolen", by: g.c, keys: g.cKeys)
        let revoked = g.roster([late, g.revoke(g.c, by: g.a, keys: g.aKeys, kept: [])])
        XCTAssertEqual(revoked.name(of: g.b), "vm-b")
        XCTAssertEqual(revoked.refusedNames[late.digest], "its signer was revoked before signing it")
        let kept = g.roster([late, g.revoke(g.c, by: g.a, keys: g.aKeys, kept: [late.digest])])
        XCTAssertEqual(kept.name(of: g.b), "stolen", "signed before the revocation: it stands")
        XCTAssertNil(kept.refusedNames[late.digest])
    }

    /// The latest by the signer's time (then digest) wins, in any order; a certificate seen twice (replayed) or an
    /// older one that arrives later never takes the name back (certificates are kept, so a rolled-back remote cannot
    /// remove the newer one).
    func testTheNewestNameWinsWhateverArrivesAgainOrLate() throws {
        let g = try Group()
        let older = g.name(g.b, "older", by: g.a, keys: g.aKeys, time: 5)
        let newer = g.name(g.b, "newer", by: g.c, keys: g.cKeys, time: 9)
        XCTAssertEqual(g.roster([newer]).name(of: g.b), "newer")
        XCTAssertEqual(g.roster([newer, older]).name(of: g.b), "newer")
        XCTAssertEqual(g.roster([older, newer, older, newer]).name(of: g.b), "newer")
        // One instant: the digest decides, the same on every device.
        let x = g.name(g.b, "x", by: g.a, keys: g.aKeys, time: 9)
        XCTAssertEqual(g.roster([x, newer]).name(of: g.b), g.roster([newer, x]).name(of: g.b))
    }

    /// Two members rename two devices to one name at the same time: the later rename gets the start of its device's
    /// id added (Roster.distinct), so names still tell devices apart.
    func testTwoDevicesRenamedToOneNameStayApart() throws {
        let g = try Group()
        let first = g.name(g.b, "db", by: g.a, keys: g.aKeys, time: 5)
        let second = g.name(g.c, "DB", by: g.b, keys: g.bKeys, time: 6)
        let roster = g.roster([second, first])
        XCTAssertEqual(roster.name(of: g.b), "db")
        XCTAssertEqual(roster.name(of: g.c), "DB-" + g.c.lowerText.prefix(4))
        // A rename onto a name a device got when it joined is told apart the same way.
        let onto = g.roster([g.name(g.c, "vm", by: g.c, keys: g.cKeys)])
        XCTAssertEqual(onto.name(of: g.c), "vm-" + g.c.lowerText.prefix(4))
    }
}
