// SigningTests: keys made by OpenSSH's ssh-keygen (OpenSSH and PEM files, every curve, RSA) sign, and OpenSSH
// itself checks the signatures (`ssh-keygen -Y check-novalidate` on an SSHSIG we wrap around them). RSA signs only
// with SHA-2 and refuses SHA-1; a key written back for the vault is a key ssh-keygen reads; a key whose halves do
// not belong together, or an over-long field, is refused on the way in.
import Foundation
import ShelfCore
import ShelfVault
import TestSupport
import XCTest

final class SigningTests: XCTestCase {
    var directory = ""

    override func setUp() {
        directory = TestScratch.root + "/signing-" + UUID().uuidString.prefix(8)
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    func keygen(
        _ name: String, _ arguments: [String], passphrase: String = ""
    ) throws
        -> (file: SecretBytes, publicLine: String, path: String)
    {
        let path = directory + "/" + name
        try Shell.run(TestTool.sshKeygen.path, ["-q", "-N", passphrase, "-C", name, "-f", path] + arguments)
        let file = SecretBytes([UInt8](try XCTUnwrap(FileManager.default.contents(atPath: path))))
        let line = try String(contentsOfFile: path + ".pub", encoding: .utf8).trimmingCharacters(
            in: .whitespacesAndNewlines)
        return (file, line, path)
    }

    /// Signs SSHSIG's signed data for `message`, wraps it as an armoured SSH signature and asks ssh-keygen to check
    /// it against `presented` (the message itself unless a test shows the check can fail).
    func opensshAccepts(
        _ key: SSHPrivateKey, flags: UInt32, message: [UInt8], presented: [UInt8]? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> Bool {
        let namespace = "sshelf-test"
        let hash = Digest.sha256(message)
        let signed =
            Array("SSHSIG".utf8) + SSHWire.string(namespace) + SSHWire.string("") + SSHWire.string("sha256")
            + SSHWire.string(hash)
        guard case .success(let signature) = key.sign(signed, flags: flags) else {
            XCTFail("signing failed", file: file, line: line)
            return false
        }
        let blob =
            Array("SSHSIG".utf8) + SSHWire.uint32(1) + SSHWire.string(key.publicBlob) + SSHWire.string(namespace)
            + SSHWire.string("") + SSHWire.string("sha256") + SSHWire.string(signature.blob)
        let armoured =
            "-----BEGIN SSH SIGNATURE-----\n"
            + Data(blob).base64EncodedString(options: [.lineLength76Characters, .endLineWithLineFeed])
            + "\n-----END SSH SIGNATURE-----\n"
        let signaturePath = directory + "/sig-" + UUID().uuidString.prefix(6)
        try armoured.write(toFile: signaturePath, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = TestTool.sshKeygen.url
        process.arguments = ["-Y", "check-novalidate", "-n", namespace, "-s", signaturePath]
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data(presented ?? message))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    func load(_ file: SecretBytes) throws -> SSHPrivateKey {
        switch SSHPrivateKey.fromKeyFile(file, passphrase: nil) {
        case .success(let key): return key
        case .failure(let problem): throw HarnessError(problem.message)
        }
    }

    func testEveryKeyTypeSignsWhatOpenSSHAccepts() throws {
        let cases: [(String, [String], SSHKeyAlgorithm)] = [
            ("ed25519", ["-t", "ed25519"], .ed25519),
            ("p256", ["-t", "ecdsa", "-b", "256"], .ecdsaP256),
            ("p384", ["-t", "ecdsa", "-b", "384"], .ecdsaP384),
            ("p521", ["-t", "ecdsa", "-b", "521"], .ecdsaP521),
            ("rsa", ["-t", "rsa", "-b", "2048"], .rsa),
            ("p256-pem", ["-t", "ecdsa", "-b", "256", "-m", "PEM"], .ecdsaP256),
            ("rsa-pem", ["-t", "rsa", "-b", "2048", "-m", "PEM"], .rsa),
        ]
        let message = Array("the agent signs this".utf8)
        for (name, arguments, algorithm) in cases {
            let made = try keygen(name, arguments)
            let key = try load(made.file)
            XCTAssertEqual(key.algorithm, algorithm, name)
            XCTAssertEqual(
                key.publicLine.split(separator: " ").prefix(2), made.publicLine.split(separator: " ").prefix(2), name)
            let flags = algorithm == .rsa ? AgentMessage.rsaSHA2_512 : 0
            XCTAssertTrue(
                try opensshAccepts(key, flags: flags, message: message), "\(name): OpenSSH rejected the signature")
            XCTAssertFalse(
                try opensshAccepts(key, flags: flags, message: message, presented: message + [0x21]),
                "\(name): a signature over other data passed")
        }
    }

    func testRSASignsWithSHA2AsAskedAndRefusesSHA1() throws {
        let key = try load(try keygen("rsa", ["-t", "rsa", "-b", "2048"]).file)
        guard case .success(let sha256) = key.sign([1, 2, 3], flags: AgentMessage.rsaSHA2_256),
            case .success(let sha512) = key.sign([1, 2, 3], flags: AgentMessage.rsaSHA2_512),
            case .success(let both) = key.sign([1, 2, 3], flags: AgentMessage.rsaSHA2_256 | AgentMessage.rsaSHA2_512)
        else { return XCTFail("SHA-2 signatures failed") }
        XCTAssertEqual(sha256.algorithm, "rsa-sha2-256")
        XCTAssertEqual(sha512.algorithm, "rsa-sha2-512")
        XCTAssertEqual(both.algorithm, "rsa-sha2-256", "SHA-256 first when both are asked for, as OpenSSH's agent")
        XCTAssertTrue(sha256.blob.starts(with: SSHWire.string("rsa-sha2-256")))
        guard case .failure(let failure) = key.sign([1, 2, 3], flags: 0) else { return XCTFail("SHA-1 was signed") }
        XCTAssertEqual(failure, .rsaSHA1Refused)
        XCTAssertTrue(try opensshAccepts(key, flags: AgentMessage.rsaSHA2_256, message: [9, 9]))
    }

    func testAKeyWrittenForTheVaultIsAKeyOpenSSHReads() throws {
        for (name, arguments) in [
            ("ed", ["-t", "ed25519"]), ("ec", ["-t", "ecdsa", "-b", "384"]),
            ("rsa", ["-t", "rsa", "-b", "2048", "-m", "PEM"]),
        ] {
            let made = try keygen(name, arguments)
            let key = try load(made.file).withComment("from the vault")
            let rewritten = directory + "/rewritten-" + name
            try key.openSSHFile().withUnsafeBytes { try Data($0).write(to: URL(fileURLWithPath: rewritten)) }
            chmod(rewritten, 0o600)
            let derived = try Shell.run(TestTool.sshKeygen.path, ["-y", "-f", rewritten])
            XCTAssertEqual(
                derived.split(separator: " ").prefix(2), made.publicLine.split(separator: " ").prefix(2), name)
            XCTAssertTrue(derived.contains("from the vault"), "the comment travels in the file: \(derived)")
            let reloaded = try load(key.openSSHFile())
            XCTAssertEqual(reloaded.publicBlob, key.publicBlob)
            XCTAssertEqual(reloaded.comment, "from the vault")
        }
    }

    /// The agent's ADD path: fields taken from the private section of a real key file, checked in full.
    func agentFields(_ file: SecretBytes) throws -> (type: String, fields: [UInt8]) {
        try OpenSSHKeyFile.privateFields(file.withUnsafeBytes { String(decoding: $0, as: UTF8.self) })
    }

    func testKeysFromSSHAddAreCheckedInFull() throws {
        for (name, arguments) in [
            ("ed", ["-t", "ed25519"]), ("ec", ["-t", "ecdsa"]), ("rsa", ["-t", "rsa", "-b", "2048"]),
        ] {
            let made = try keygen(name, arguments)
            let (type, fields) = try agentFields(made.file)
            let good = fields.withUnsafeBytes { SSHPrivateKey.fromAgent(keyType: type, fields: $0, comment: name) }
            guard case .success(let key) = good else { return XCTFail("\(name): a real key was refused") }
            XCTAssertEqual(key.publicLine, made.publicLine, name)

            // Flip one bit near the end (inside the private scalar or a prime): the halves no longer match.
            var damaged = fields
            damaged[damaged.count - 3] ^= 0x01
            let refused = damaged.withUnsafeBytes { SSHPrivateKey.fromAgent(keyType: type, fields: $0, comment: name) }
            if case .success = refused { XCTFail("\(name): a key whose halves differ was accepted") }
        }
        let unknown = [UInt8]().withUnsafeBytes { SSHPrivateKey.fromAgent(keyType: "ssh-dss", fields: $0, comment: "") }
        if case .success = unknown { XCTFail("a DSA key was accepted") }
    }

    func testEncryptedOpenSSHKeysOpenWithTheirPassphraseUnderEveryCipher() throws {
        let passphrase = SecretBytes(Array("key pass".utf8))
        let cases: [(String, [String])] = [
            ("default", ["-t", "ed25519"]),  // aes256-ctr, 16 bcrypt rounds: what ssh-keygen writes by default
            ("aes128-ctr", ["-t", "ecdsa", "-a", "2", "-Z", "aes128-ctr"]),
            ("aes256-cbc", ["-t", "ed25519", "-a", "2", "-Z", "aes256-cbc"]),
            ("aes256-gcm", ["-t", "ed25519", "-a", "2", "-Z", "aes256-gcm@openssh.com"]),
            ("chacha20-poly1305", ["-t", "rsa", "-b", "2048", "-a", "2", "-Z", "chacha20-poly1305@openssh.com"]),
        ]
        for (name, arguments) in cases {
            let made = try keygen(name, arguments, passphrase: "key pass")
            XCTAssertEqual(OpenSSHKey.inspect(made.file)?.encrypted, true, name)
            guard case .success(let key) = SSHPrivateKey.fromKeyFile(made.file, passphrase: passphrase) else {
                XCTFail("\(name): did not open with its passphrase")
                continue
            }
            XCTAssertEqual(key.publicLine, made.publicLine, name)
            XCTAssertTrue(try opensshAccepts(key, flags: AgentMessage.rsaSHA2_256, message: [4, 2]), name)
            guard
                case .failure(let problem) = SSHPrivateKey.fromKeyFile(
                    made.file, passphrase: SecretBytes(Array("nope".utf8)))
            else {
                XCTFail("\(name): opened with a wrong passphrase")
                continue
            }
            XCTAssertTrue(problem.message.contains("wrong passphrase"), "\(name): \(problem.message)")
            guard case .failure(let missing) = SSHPrivateKey.fromKeyFile(made.file, passphrase: nil) else { continue }
            XCTAssertTrue(missing.message.contains("passphrase is not in the vault"), missing.message)
        }
    }

    func testTheVaultHandsOutASigningKeyWithItsKeptPassphraseOrSaysWhatIsMissing() throws {
        let fixture = VaultFixture()
        let vault = try fixture.open()
        let id = UUID()
        let made = try keygen("kept", ["-t", "ed25519", "-a", "2"], passphrase: "kept pass")
        try vault.saveIdentityPrivateKey(made.file, identityID: id, class: .whenUnlockedThisDeviceOnly)
        guard case .needsKeyPassphrase = vault.signingKey(identityID: id) else {
            return XCTFail("opened without a passphrase")
        }
        guard
            case .needsKeyPassphrase = vault.signingKey(identityID: id, keyPassphrase: SecretBytes(Array("wrong".utf8)))
        else {
            return XCTFail("a wrong typed passphrase opened it")
        }
        guard
            case .key(let typed) = vault.signingKey(identityID: id, keyPassphrase: SecretBytes(Array("kept pass".utf8)))
        else {
            return XCTFail("the typed passphrase did not open it")
        }
        XCTAssertEqual(typed.publicLine, made.publicLine)
        try vault.saveIdentityPassphrase(
            SecretBytes(Array("kept pass".utf8)), identityID: id, class: .whenUnlockedThisDeviceOnly)
        guard case .key(let kept) = vault.signingKey(identityID: id) else {
            return XCTFail("the kept passphrase did not open it")
        }
        XCTAssertTrue(try opensshAccepts(kept, flags: 0, message: [1]))
        guard case .notStored = vault.signingKey(identityID: UUID()) else { return XCTFail("a key out of nowhere") }

        // A class locked in this process is reported as such, naming the class.
        try vault.setPassphrase(SecretBytes(Array("vault pass".utf8)), current: nil)
        guard case .locked(let locked) = try fixture.open().signingKey(identityID: id) else {
            return XCTFail("read while locked")
        }
        XCTAssertEqual(locked, .whenUnlockedThisDeviceOnly)
    }

    func testHostKeySignaturesAreCheckedForEveryKeyType() throws {
        let sessionID = [UInt8](repeating: 0x5a, count: 32)
        for (name, arguments, flags) in [
            ("ed", ["-t", "ed25519"], UInt32(0)), ("ec", ["-t", "ecdsa", "-b", "384"], 0),
            ("rsa", ["-t", "rsa", "-b", "2048"], AgentMessage.rsaSHA2_512),
        ] {
            let key = try load(try keygen("host-" + name, arguments).file)
            guard case .success(let signature) = key.sign(sessionID, flags: flags) else { return XCTFail(name) }
            XCTAssertTrue(
                HostKeySignature.verify(hostKey: key.publicBlob, signature: signature.blob, data: sessionID), name)
            XCTAssertFalse(
                HostKeySignature.verify(hostKey: key.publicBlob, signature: signature.blob, data: sessionID + [0]),
                "\(name): another session")
            let other = try load(try keygen("other-" + name, arguments).file)
            XCTAssertFalse(
                HostKeySignature.verify(hostKey: other.publicBlob, signature: signature.blob, data: sessionID),
                "\(name): another server's key")
            var damaged = signature.blob
            damaged[damaged.count - 1] ^= 1
            XCTAssertFalse(HostKeySignature.verify(hostKey: key.publicBlob, signature: damaged, data: sessionID), name)
        }
    }
}
