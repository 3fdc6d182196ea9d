// HostKeyRevocationsTests: the RevokedHostKeys reader — a KRL's certificate serials (as `ca revoke` writes them) and
// explicit keys, a list of public key lines, and anything else refused whole.
import Foundation
import ShelfCore
import XCTest

final class HostKeyRevocationsTests: XCTestCase {
    func testAKRLRevokesSerialsUnderItsCAOnly() throws {
        let caKey = SSHWire.string("ssh-ed25519") + SSHWire.string([UInt8](repeating: 7, count: 32))
        let otherCA = SSHWire.string("ssh-ed25519") + SSHWire.string([UInt8](repeating: 9, count: 32))
        let list = KeyRevocationList(version: 1, generated: 0, comment: "t", serials: [(caKey, [3, 5])])
        let revocations = try XCTUnwrap(HostKeyRevocations.parse(list.bytes))
        func certificate(_ serial: UInt64, by ca: [UInt8]) -> SSHCertificate {
            SSHCertificate(
                keyType: "ssh-ed25519", nonce: [], keyFields: SSHWire.string([UInt8](repeating: 1, count: 32)),
                serial: serial, kind: .host, keyID: "h", principals: ["h"], validAfter: 0, validBefore: 1,
                signatureKey: ca)
        }
        XCTAssertTrue(revocations.revokes(certificate: certificate(3, by: caKey)))
        XCTAssertTrue(revocations.revokes(certificate: certificate(5, by: caKey)))
        XCTAssertFalse(revocations.revokes(certificate: certificate(4, by: caKey)))
        XCTAssertFalse(revocations.revokes(certificate: certificate(3, by: otherCA)))
        XCTAssertFalse(revocations.revokes(key: caKey))
    }

    func testAListOfKeyLinesAndGarbage() throws {
        let blob = SSHWire.string("ssh-ed25519") + SSHWire.string([UInt8](repeating: 2, count: 32))
        let line = "# revoked\n\nssh-ed25519 \(Data(blob).base64EncodedString()) old-host\n"
        let revocations = try XCTUnwrap(HostKeyRevocations.parse(Array(line.utf8)))
        XCTAssertTrue(revocations.revokes(key: blob))
        XCTAssertNil(HostKeyRevocations.parse(Array("not a key\n".utf8)))
        XCTAssertNil(HostKeyRevocations.parse(KeyRevocationList.magic + [0, 0, 0, 9]), "a KRL cut short")
    }
}
