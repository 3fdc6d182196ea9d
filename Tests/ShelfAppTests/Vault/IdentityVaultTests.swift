// IdentityVaultTests: `identity import` (OpenSSH, encrypted OpenSSH, PEM) and `keygen`, checked with OpenSSH's
// own ssh-keygen: the public key recorded is the key's, and the file is left alone unless --remove-file.
import Foundation
import TestSupport
import XCTest

final class IdentityVaultTests: XCTestCase {
    func sshKeygen(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = TestTool.sshKeygen.url
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, arguments.joined(separator: " "))
        return String(decoding: data, as: UTF8.self)
    }

    func identities(_ home: TempHome) throws -> [[String: Any]] {
        let listed = try home.run(["identity", "list", "--json"])
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
    }

    func testImportOpenSSHEncryptedAndPEMKeys() throws {
        let home = TempHome()
        home.extraEnvironment = ["SSHELF_TEST_WEAK_KDF": "1", "SSHELF_VAULT_NO_KEYRING": "1"]
        let keys = home.home + "/.ssh"
        try FileManager.default.createDirectory(atPath: keys, withIntermediateDirectories: true)
        _ = try sshKeygen(["-q", "-t", "ed25519", "-N", "", "-f", keys + "/plain", "-C", "plain"])
        _ = try sshKeygen(["-q", "-t", "ed25519", "-N", "keypass", "-f", keys + "/locked", "-C", "locked"])
        _ = try sshKeygen(["-q", "-t", "rsa", "-b", "2048", "-m", "PEM", "-N", "", "-f", keys + "/pem", "-C", "pem"])

        XCTAssertExit(try home.run(["identity", "import", "plain", keys + "/plain"]), 0)
        let wrong = try home.run(
            ["identity", "import", "locked", keys + "/locked", "--key-passphrase-fd", "0"], stdin: "nope\n")
        XCTAssertEqual(wrong.status, 4, "\(wrong)")
        XCTAssertTrue(wrong.stderr.contains("the passphrase does not open"), wrong.stderr)
        XCTAssertFalse(
            try home.run(["identity", "list"]).stdout.contains("locked"), "a wrong passphrase stores nothing")
        let opened = try home.run(
            ["identity", "import", "locked", keys + "/locked", "--key-passphrase-fd", "0"], stdin: "keypass\n")
        XCTAssertExit(opened, 0)
        XCTAssertTrue(opened.stdout.contains("stored decrypted"), opened.stdout)
        XCTAssertExit(try home.run(["identity", "import", "pem", keys + "/pem", "--remove-file"]), 0)

        let byName = Dictionary(uniqueKeysWithValues: try identities(home).map { ($0["name"] as? String ?? "", $0) })
        for name in ["plain", "locked", "pem"] {
            // The whole .pub line, comment included: `identity show` prints what ssh-keygen wrote.
            let pub = try String(contentsOfFile: keys + "/\(name).pub", encoding: .utf8)
            let expected = pub.trimmingCharacters(in: .whitespacesAndNewlines)
            XCTAssertEqual(byName[name]?["publicKey"] as? String, expected, name)
            XCTAssertEqual(try home.run(["identity", "show", name]).stdout, expected + "\n", name)
            XCTAssertNotNil(byName[name]?["privateKeyRef"] as? String, name)
        }
        XCTAssertNil(byName["locked"]?["passphraseRef"] as? String, "opened once at import: no passphrase to keep")
        XCTAssertNil(byName["plain"]?["passphraseRef"] as? String)
        XCTAssertTrue(FileManager.default.fileExists(atPath: keys + "/plain"), "left alone without --remove-file")
        XCTAssertFalse(FileManager.default.fileExists(atPath: keys + "/pem"), "--remove-file removes it")
        let list = try home.run(["vault", "list"]).stdout
        XCTAssertEqual(list.components(separatedBy: "identity.privkey").count - 1, 3, list)
        XCTAssertEqual(list.components(separatedBy: "identity.passphrase").count - 1, 0, list)

        let notAKey = try home.write("hello", to: "not-a-key")
        XCTAssertExit(try home.run(["identity", "import", "bad", notAKey]), 4)
    }

    func testKeygenPrintsAPublicKeyTheStoreAgreesWith() throws {
        let home = TempHome()
        home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1"]
        let made = try home.run(["keygen", "laptop"])
        XCTAssertExit(made, 0)
        let line = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertTrue(line.hasPrefix("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI"), line)
        XCTAssertTrue(line.hasSuffix(" laptop"), line)
        // ssh-keygen accepts the line as a public key and computes a fingerprint for it.
        let pubPath = try home.write(line + "\n", to: "laptop.pub")
        XCTAssertTrue(try sshKeygen(["-l", "-f", pubPath]).contains("(ED25519)"))
        XCTAssertEqual(try identities(home).first?["publicKey"] as? String, line)
        XCTAssertExit(try home.run(["keygen", "laptop"]), 2)
    }

    func testRemovingAnIdentityClearsItsHostsAndItsKeyInTheVault() throws {
        let home = TempHome()
        home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1"]
        XCTAssertExit(try home.run(["keygen", "old-key"]), 0)
        XCTAssertExit(try home.run(["keygen", "kept-key"]), 0)
        XCTAssertExit(
            try home.run(["add", "web", "--host", "web.example", "--identity", "old-key", "--tag", "prod"]), 0)
        XCTAssertEqual(try home.run(["vault", "list"]).stdout.components(separatedBy: "identity.privkey").count - 1, 2)

        let removed = try home.run(["identity", "rm", "old-key"])
        XCTAssertExit(removed, 0)
        XCTAssertEqual(removed.stdout, "deleted identity old-key; cleared it from 1 host(s); its key left the vault\n")
        XCTAssertEqual(try identities(home).compactMap { $0["name"] as? String }, ["kept-key"])
        let show = try home.run(["show", "web"]).stdout
        XCTAssertTrue(show.contains("identity       (none)"), show)
        XCTAssertTrue(show.contains("tags           prod"), "the host keeps everything else: \(show)")
        let list = try home.run(["vault", "list"]).stdout
        XCTAssertEqual(list.components(separatedBy: "identity.privkey").count - 1, 1, list)
        XCTAssertExit(try home.run(["identity", "rm", "old-key"]), 3)
    }

    func testAPEMKeyWithoutItsPubFileGetsItsPublicKeyFromTheKey() throws {
        let home = TempHome()
        home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1"]
        let path = home.home + "/pem-ec"
        _ = try sshKeygen(["-q", "-t", "ecdsa", "-m", "PEM", "-N", "", "-f", path])
        let derived = try sshKeygen(["-y", "-f", path]).trimmingCharacters(in: .whitespacesAndNewlines)
            .split(separator: " ").prefix(2).joined(separator: " ")
        try FileManager.default.removeItem(atPath: path + ".pub")
        XCTAssertExit(try home.run(["identity", "import", "ec", path]), 0)
        let identity = try XCTUnwrap(try identities(home).first)
        XCTAssertEqual(identity["keyType"] as? String, "ecdsa")
        XCTAssertEqual(try home.run(["identity", "show", "ec"]).stdout, derived + " ec\n")
    }
}
