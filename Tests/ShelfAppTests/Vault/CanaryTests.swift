// CanaryTests: recognisable secrets go in through every door (host password, vault passphrase, private key,
// key passphrase); then every file under SSHELF_HOME is scanned for them raw, in base64 and in hex.
import Foundation
import TestSupport
import XCTest

final class CanaryTests: XCTestCase {
    func scan(
        _ root: String, for secrets: [String: String], control: [UInt8], file: StaticString = #filePath,
        line: UInt = #line
    ) {
        XCTAssertFalse(
            (FileManager.default.subpaths(atPath: root) ?? []).isEmpty, "nothing to scan", file: file, line: line)
        XCTAssertEqual(SecretScan.hits(root, for: secrets.mapValues { Array($0.utf8) }), [], file: file, line: line)
        // The detector itself works: the public key blob is in the store in base64, so it must be found.
        XCTAssertFalse(
            SecretScan.hits(root, for: ["control": control]).isEmpty, "the scan cannot see base64", file: file,
            line: line)
    }

    func testNoCredentialByteLeavesTheVaultInAnyForm() throws {
        let home = TempHome()
        home.extraEnvironment = ["SSHELF_TEST_WEAK_KDF": "1", "SSHELF_VAULT_NO_KEYRING": "1"]
        let password = "CANARY-password-7f3a9c1e5d"
        let passphrase = "CANARY-vault-passphrase-2b8e"
        let keyPassphrase = "CANARY-key-passphrase-91d0"
        XCTAssertExit(try home.run(["add", "web", "--host", "web.example"]), 0)
        XCTAssertExit(try home.run(["vault", "passwd", "--passphrase-fd", "0"], stdin: passphrase + "\n"), 0)
        XCTAssertExit(
            try home.run(
                ["vault", "set-password", "web", "--passphrase-fd", "0", "--secret-fd", "0"],
                stdin: "\(passphrase)\n\(password)\n"), 0)

        let keyPath = home.home + "/id_test"
        let keygen = Process()
        keygen.executableURL = TestTool.sshKeygen.url
        keygen.arguments = ["-q", "-t", "ed25519", "-N", keyPassphrase, "-f", keyPath, "-C", "canary"]
        try keygen.run()
        keygen.waitUntilExit()
        let keyText = try String(contentsOfFile: keyPath, encoding: .utf8)
        // The armoured body's longest line is unique to this key: a recognisable canary of its own.
        let keyLine = try XCTUnwrap(keyText.split(separator: "\n").dropFirst(3).first.map(String.init))
        XCTAssertExit(
            try home.run(
                ["identity", "import", "canary", keyPath, "--passphrase-fd", "0", "--key-passphrase-fd", "0"],
                stdin: "\(passphrase)\n\(keyPassphrase)\n"), 0)
        let secrets = [
            "password": password, "vault passphrase": passphrase, "key passphrase": keyPassphrase,
            "private key": keyLine,
        ]
        let publicLine = try String(contentsOfFile: keyPath + ".pub", encoding: .utf8)
        let control = try XCTUnwrap(Data(base64Encoded: String(publicLine.split(separator: " ")[1])))
        scan(home.sshelfHome, for: secrets, control: Array(control))
        // Also with the vault passphrase removed (class keys re-wrapped, nothing else rewritten in clear).
        XCTAssertExit(
            try home.run(["vault", "passwd", "--remove", "--passphrase-fd", "0"], stdin: passphrase + "\n"), 0)
        scan(home.sshelfHome, for: secrets, control: Array(control))
        // And the command output never carried them either.
        for argv in [
            ["vault", "list"], ["vault", "status"], ["vault", "audit"], ["identity", "list", "--json"],
            ["show", "web"],
        ] {
            let result = try home.run(argv)
            for secret in secrets.values {
                XCTAssertFalse(
                    result.stdout.contains(secret) || result.stderr.contains(secret), argv.joined(separator: " "))
            }
        }
    }
}
