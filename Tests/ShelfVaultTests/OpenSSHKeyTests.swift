// OpenSSHKeyTests: the ed25519 key keygen stores is a valid OpenSSH private key (OpenSSH's ssh-keygen derives
// the same public key from it), and inspection recognises formats and encryption without decrypting.
import Foundation
import ShelfVault
import TestSupport
import XCTest

final class OpenSSHKeyTests: XCTestCase {
    func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = TestTool.sshKeygen.url
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    func testGeneratedKeyIsAcceptedByOpenSSH() throws {
        let fixture = VaultFixture()
        let (privateKey, publicKey) = OpenSSHKey.generateEd25519(comment: "test@sshelf")
        let path = fixture.home.root + "/generated"
        try privateKey.withUnsafeBytes { try Data($0).write(to: URL(fileURLWithPath: path)) }
        chmod(path, 0o600)
        let derived = try run(["-y", "-f", path])
        XCTAssertEqual(derived.status, 0)
        XCTAssertEqual(derived.output.split(separator: " ").prefix(2), publicKey.split(separator: " ").prefix(2))
        let inspection = try XCTUnwrap(OpenSSHKey.inspect(privateKey))
        XCTAssertEqual(inspection.format, .openssh)
        XCTAssertFalse(inspection.encrypted)
        XCTAssertEqual(inspection.publicKey, publicKey.split(separator: " ").prefix(2).joined(separator: " "))
        XCTAssertNotEqual(OpenSSHKey.generateEd25519(comment: "").publicKey, publicKey, "fresh randomness each time")
    }

    func testInspectionRecognisesEncryptionAndPEM() throws {
        let fixture = VaultFixture()
        let base = fixture.home.root
        XCTAssertEqual(try run(["-q", "-t", "ed25519", "-N", "pw-long", "-f", base + "/enc", "-C", ""]).status, 0)
        XCTAssertEqual(
            try run(["-q", "-t", "ecdsa", "-m", "PEM", "-N", "pw-long", "-f", base + "/pem", "-C", ""]).status, 0)
        let encrypted = try XCTUnwrap(
            OpenSSHKey.inspect(SecretBytes(Array(try Data(contentsOf: URL(fileURLWithPath: base + "/enc"))))))
        XCTAssertEqual(encrypted.format, .openssh)
        XCTAssertTrue(encrypted.encrypted)
        XCTAssertEqual(encrypted.keyType, "ssh-ed25519")
        let pem = try XCTUnwrap(
            OpenSSHKey.inspect(SecretBytes(Array(try Data(contentsOf: URL(fileURLWithPath: base + "/pem"))))))
        XCTAssertEqual(pem.format, .pem)
        XCTAssertTrue(pem.encrypted)
        XCTAssertNil(OpenSSHKey.inspect(SecretBytes(Array("ssh-ed25519 AAAA not a private key".utf8))))
        // A truncated OpenSSH key is not misread (bounds-checked reader).
        let truncated =
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n"
        XCTAssertNil(OpenSSHKey.inspect(SecretBytes(Array(truncated.utf8))))
    }
}
