// DigestTests: SHA-256, SHA-1 and HMAC-SHA1 against published vectors, and fingerprints against ssh-keygen.
import ShelfCore
@testable import ShelfSSH
import TestSupport
import XCTest

final class DigestTests: XCTestCase {
    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    func testSHA256Vectors() {
        XCTAssertEqual(hex(Digest.sha256([])), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(
            hex(Digest.sha256(Array("abc".utf8))), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let long = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        XCTAssertEqual(hex(Digest.sha256(long)), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    func testSHA1AndHMACVectors() {
        XCTAssertEqual(hex(Digest.sha1(Array("abc".utf8))), "a9993e364706816aba3e25717850c26c9cd0d89d")
        // RFC 2202 test case 2.
        XCTAssertEqual(
            hex(Digest.hmacSHA1(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))),
            "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79")
    }

    func testFingerprintMatchesSSHKeygen() throws {
        let key = try TestKey.generate(.ed25519)
        let parts = key.publicLine.split(separator: " ").map(String.init)
        let hostKey = try XCTUnwrap(HostKey(type: parts[0], base64: parts[1]))
        let keygen = try Shell.run(TestTool.sshKeygen.path, ["-l", "-E", "sha256", "-f", key.privatePath + ".pub"])
        XCTAssertTrue(keygen.contains(hostKey.fingerprint), "\(keygen) vs \(hostKey.fingerprint)")
    }
}
