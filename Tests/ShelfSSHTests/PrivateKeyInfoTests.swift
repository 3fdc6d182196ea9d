// PrivateKeyInfoTests: the header reader behind the passphrase question and the RSA message, against keys made
// by OpenSSH's own ssh-keygen (OpenSSH and PEM formats, with and without a passphrase).
import Foundation
@testable import ShelfSSH
import ShelfCore
import TestSupport
import XCTest

final class PrivateKeyInfoTests: XCTestCase {
    func key(_ arguments: [String]) throws -> SecretBytes {
        let path = NSTemporaryDirectory() + "sshelf-keyinfo-\(UUID().uuidString)"
        defer {
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: path + ".pub")
        }
        try Shell.run(TestTool.sshKeygen.path, ["-q", "-f", path, "-C", "test"] + arguments)
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        return SecretBytes.take(&bytes)
    }

    func testTypesAndPassphrasesOfRealKeys() throws {
        let cases: [([String], PrivateKeyInfo)] = [
            (["-t", "ed25519", "-N", ""], PrivateKeyInfo(type: .ed25519, encrypted: false)),
            (["-t", "ed25519", "-N", "secret"], PrivateKeyInfo(type: .ed25519, encrypted: true)),
            (["-t", "ecdsa", "-N", ""], PrivateKeyInfo(type: .ecdsa, encrypted: false)),
            (["-t", "rsa", "-b", "3072", "-N", ""], PrivateKeyInfo(type: .rsa, encrypted: false)),
            (["-t", "rsa", "-b", "2048", "-m", "PEM", "-N", ""], PrivateKeyInfo(type: .rsa, encrypted: false)),
            (["-t", "rsa", "-b", "2048", "-m", "PEM", "-N", "secret"], PrivateKeyInfo(type: .rsa, encrypted: true)),
            (["-t", "ecdsa", "-m", "PEM", "-N", ""], PrivateKeyInfo(type: .ecdsa, encrypted: false)),
        ]
        for (arguments, expected) in cases {
            XCTAssertEqual(PrivateKeyInfo.inspect(try key(arguments)), expected, arguments.joined(separator: " "))
        }
        XCTAssertEqual(
            PrivateKeyInfo.inspect(SecretBytes(Array("not a key".utf8))), PrivateKeyInfo(type: nil, encrypted: false))
    }
}
