// Keys from the vault, end to end: a key made by `sshelf keygen` (ed25519) and an ECDSA key moved in with
// `identity import --remove-file` log in to the real sshd from memory — no key file exists anywhere.
import Foundation
import TestSupport
import XCTest

final class VaultKeyLoginTests: XCTestCase {
    func testEd25519FromKeygenAndECDSAFromImportLogIn() throws {
        let world = try SSHCLIWorld()
        world.home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1"]
        // keygen: the private half goes straight into the vault; the server is told the public half.
        let made = try world.home.run("keygen", "made-here")
        XCTAssertExit(made, 0)
        try world.sshd.authorize(made.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        XCTAssertExit(try world.home.run("edit", "t", "--identity", "made-here", "--auth", "publickey"), 0)
        let first = try world.home.run("exec", "t", "--accept-new", "--no-stdin", "--", "echo", "ed25519")
        XCTAssertExit(first, 0)
        XCTAssertEqual(first.stdout, "ed25519\n")

        // An ECDSA key file imported into the vault and removed from disk.
        let ecdsa = try TestKey.generate(.ecdsa)
        try world.sshd.authorize(ecdsa.publicLine)
        XCTAssertExit(try world.home.run("identity", "import", "ec", ecdsa.privatePath, "--remove-file"), 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: ecdsa.privatePath), "--remove-file removes the key file")
        XCTAssertExit(try world.home.run("edit", "t", "--identity", "ec"), 0)
        let second = try world.home.run("exec", "t", "--no-stdin", "--", "echo", "ecdsa")
        XCTAssertExit(second, 0)
        XCTAssertEqual(second.stdout, "ecdsa\n")
        XCTAssertTrue(world.sshd.waitForLog("Accepted publickey", count: 2), world.sshd.log)
        XCTAssertTrue(world.sshd.log.contains("ECDSA"), "the ECDSA key was the one accepted:\n\(world.sshd.log)")
        let list = try world.home.run("vault", "list")
        XCTAssertEqual(list.stdout.components(separatedBy: "identity.privkey").count - 1, 2, list.stdout)
    }
}
