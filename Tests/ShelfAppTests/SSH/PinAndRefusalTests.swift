// PinAndRefusalTests: a verified host key is pinned on the host record whatever vouched for it (sshelf's
// known_hosts, a key accepted before a login that then failed); a broken vault is reported as itself, not as
// "no password given"; and a refusal always says why, also with nobody reading a ready pipe.
import Foundation
import TestSupport
import XCTest

final class PinAndRefusalTests: XCTestCase {
    func pinnedKey(_ world: SSHCLIWorld, _ name: String) throws -> String? {
        let show = try world.home.run("show", name, "--json")
        let object = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as? [String: Any], show.stdout)
        return (object["pinnedHostKey"] as? [String: Any])?["key"] as? String
    }

    var serverKey: (SSHCLIWorld) -> String {
        { String($0.sshd.hostPublicKey(.ed25519).split(separator: " ")[1]) }
    }

    func testASecondHostAtAnAddressSshelfKnowsGetsThePinToo() throws {
        let world = try SSHCLIWorld()
        XCTAssertExit(try world.home.run("exec", "t", "--accept-new", "--", "true"), 0)
        try world.addHost("t2", world.sshd)
        XCTAssertNil(try pinnedKey(world, "t2"))
        let second = try world.home.run("exec", "t2", "--", "true")
        XCTAssertExit(second, 0)
        XCTAssertFalse(
            second.stderr.contains("accepting"), "known from sshelf's known_hosts, no question: \(second.stderr)")
        XCTAssertEqual(try pinnedKey(world, "t2"), serverKey(world))
    }

    func testAKeyAcceptedBeforeAFailedLoginIsPinned() throws {
        let world = try SSHCLIWorld()
        XCTAssertExit(try world.home.run("edit", "t", "--auth", "password"), 0)
        let failed = try world.home.run(
            ["exec", "t", "--accept-new", "--no-stdin", "--password-fd", "0", "--", "true"],
            stdin: "not the password\n")
        XCTAssertExit(failed, 255)
        XCTAssertTrue(failed.stderr.contains("authentication failed"), failed.stderr)
        XCTAssertEqual(try pinnedKey(world, "t"), serverKey(world))
    }

    func testADamagedDeviceKeyIsReportedAsItselfNotAsAMissingPassword() throws {
        let world = try SSHCLIWorld()
        world.home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1"]
        XCTAssertExit(try world.home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        XCTAssertExit(try world.home.run("edit", "t", "--auth", "password"), 0)
        XCTAssertExit(
            try world.home.run(["vault", "set-password", "t", "--secret-fd", "3"], fd3: TestAccount.password), 0)
        XCTAssertExit(try world.home.run("exec", "t", "--no-stdin", "--", "true"), 0)

        // Same length and mode, but no longer an sshelf device key.
        let keyPath = world.home.sshelfHome + "/state/device.key"
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: keyPath))
        try handle.write(contentsOf: Data("not-a-device-key!".utf8))
        try handle.close()
        let result = try world.home.run("exec", "t", "--no-stdin", "--", "true")
        XCTAssertExit(result, 255)
        XCTAssertTrue(result.stderr.contains("is in the vault, which cannot be read"), result.stderr)
        XCTAssertTrue(result.stderr.contains("is not an sshelf device key"), result.stderr)
        XCTAssertFalse(result.stderr.contains("no password given"), result.stderr)
    }

    func testWarmServeWithoutAReadyDescriptorSaysWhyItRefused() throws {
        let world = try SSHCLIWorld()
        let impostor = try world.impostorForT()
        defer { withExtendedLifetime(impostor) {} }
        let refused = try world.home.run("warm", "serve", "t", "--idle", "5")
        XCTAssertExit(refused, 255)
        XCTAssertTrue(refused.stderr.hasPrefix("sshelf: error: WARNING: the host key of t"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("has CHANGED"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("sshelf: hint: "), refused.stderr)
    }
}
