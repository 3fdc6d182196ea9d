// HostKeyTests: host-key trust against a real sshd — first use refused or accepted, pinned match, changed key
// refused before any auth (proven from the sshd log and the credential journal), other key type, hashed
// ~/.ssh/known_hosts, and the algorithm preference that negotiates a known key type first.
import ShelfCore
import ShelfSSH
import TestSupport
import XCTest

final class HostKeyTests: XCTestCase {
    var key: TestKey!

    override func setUpWithError() throws {
        try TestAccount.ensure()
        key = try TestKey.generate(.ed25519)
    }

    private func server(_ types: [SSHD.KeyType] = [.ed25519]) throws -> SSHD {
        var options = SSHD.Options()
        options.hostKeyTypes = types
        options.authorizedKeys = [key.publicLine]
        return try SSHD.start(options)
    }

    func testCredentialsAreLookedUpOnlyAfterTheHostKeyIsVerified() throws {
        let sshd = try server()
        let world = SSHWorld()
        let identity = world.vaultIdentity(key, type: .ed25519)
        let connection = try world.connector.connect([world.endpoint(sshd, identity: identity, pinned: world.pin(sshd))]
        )
        connection.close()
        let verified = try XCTUnwrap(world.journal.index(of: "verified target"), "\(world.journal.entries)")
        let lookup = try XCTUnwrap(world.journal.index(of: "lookup privkey"), "\(world.journal.entries)")
        XCTAssertLessThan(verified, lookup, "\(world.journal.entries)")
        XCTAssertTrue(sshd.log.contains("userauth-request"), "the log shows auth requests when there are any")
    }

    func testUnknownKeyRefusedByPolicySendsNothing() throws {
        let sshd = try server()
        let world = SSHWorld()
        world.delegate.hostKeyDecision = .refuse
        let identity = world.vaultIdentity(key, type: .ed25519)
        XCTAssertThrowsError(try world.connector.connect([world.endpoint(sshd, identity: identity)])) { error in
            let error = error as? SSHError
            XCTAssertEqual(error?.kind, .hostKeyUnknown)
            XCTAssertTrue(
                error?.message.contains(world.pin(sshd).fingerprintForTest) == true, "\(String(describing: error))")
        }
        XCTAssertEqual(world.delegate.questions.first?.reason, .unknown)
        XCTAssertNil(world.journal.index(of: "lookup"), "\(world.journal.entries)")
        sshd.waitForConnectionsEnded()
        XCTAssertFalse(sshd.log.contains("userauth-request"), sshd.log)
    }

    func testAcceptedKeyIsRememberedAndTrustedNextTime() throws {
        let sshd = try server()
        let world = SSHWorld()
        world.delegate.hostKeyDecision = .acceptAndRemember
        let kept = "# written by hand\nthis line is not a known_hosts entry\n"
        try FileManager.default.createDirectory(atPath: world.directory + "/data", withIntermediateDirectories: true)
        try kept.write(toFile: world.ownKnownHosts, atomically: true, encoding: .utf8)
        let identity = world.vaultIdentity(key, type: .ed25519)
        let hop = world.endpoint(sshd, identity: identity)
        let connection = try world.connector.connect([hop])
        XCTAssertEqual(connection.outcome.pinnedKeys.map(\.key), [world.pin(sshd)])
        XCTAssertEqual(connection.outcome.pinnedKeys.map(\.hostID), [hop.hostID!])
        connection.close()
        let saved = try KnownHostsFile.load(world.ownKnownHosts)
        XCTAssertEqual(saved.entries(for: sshd.knownHostsName).map(\.key.pinned), [world.pin(sshd)])
        XCTAssertTrue(saved.text.hasPrefix(kept), "lines it could not parse are kept: \(saved.text)")

        world.delegate.hostKeyDecision = .refuse
        world.delegate.questions = []
        try world.connector.connect([hop]).close()
        XCTAssertTrue(world.delegate.questions.isEmpty, "no question the second time")
    }

    func testEveryVerifiedHopWithoutAPinGetsOneWhateverVouchedForIt() throws {
        let sshd = try server()
        let world = SSHWorld()
        let identity = world.vaultIdentity(key, type: .ed25519)
        // A second host record for an address sshelf's known_hosts already holds: no question, and a pin.
        try FileManager.default.createDirectory(atPath: world.directory + "/data", withIntermediateDirectories: true)
        try "\(sshd.knownHostsName) \(sshd.hostPublicKey(.ed25519))\n".write(
            toFile: world.ownKnownHosts, atomically: true, encoding: .utf8)
        let second = world.endpoint(sshd, name: "second", identity: identity)
        let connection = try world.connector.connect([second])
        connection.close()
        XCTAssertTrue(world.delegate.questions.isEmpty)
        XCTAssertEqual(connection.outcome.pinnedKeys.map(\.hostID), [second.hostID!])
        XCTAssertEqual(connection.outcome.pinnedKeys.map(\.key), [world.pin(sshd)])
        // Trusted through its own pin: nothing to record.
        let pinned = world.endpoint(sshd, name: "pinned", identity: identity, pinned: world.pin(sshd))
        let again = try world.connector.connect([pinned])
        again.close()
        XCTAssertTrue(again.outcome.pinnedKeys.isEmpty)
    }

    func testAKeyAcceptedBeforeAFailedLoginIsStillReportedForPinning() throws {
        let sshd = try server()
        let world = SSHWorld()
        world.delegate.hostKeyDecision = .acceptAndRemember
        let connector = world.connector
        let hop = world.endpoint(sshd, auth: .password)  // no password given: the login fails after the key
        XCTAssertThrowsError(try connector.connect([hop])) { XCTAssertEqual(($0 as? SSHError)?.kind, .cancelled) }
        XCTAssertEqual(connector.lastOutcome.pinnedKeys.map(\.hostID), [hop.hostID!])
        XCTAssertEqual(connector.lastOutcome.pinnedKeys.map(\.key), [world.pin(sshd)])
    }

    func testChangedKeyIsAHardFailureWithNoAuthAttempt() throws {
        let sshd = try server()
        let impostorKey = try TestKey.generate(.ed25519).publicLine.split(separator: " ").map(String.init)
        let oldPin = PinnedHostKey(type: impostorKey[0], key: impostorKey[1])
        let world = SSHWorld()
        world.delegate.hostKeyDecision = .acceptAndRemember  // must not even be asked
        world.source.items[ReferenceKey.hostPassword(UUID()).rawValue] = Array("x".utf8)
        let identity = world.vaultIdentity(key, type: .ed25519)
        let hop = world.endpoint(sshd, identity: identity, passwordRef: .hostPassword(UUID()), pinned: oldPin)
        XCTAssertThrowsError(try world.connector.connect([hop])) { error in
            let error = error as? SSHError
            XCTAssertEqual(error?.kind, .hostKeyChanged)
            XCTAssertTrue(error?.message.contains(oldPin.fingerprintForTest) == true, "\(String(describing: error))")
            XCTAssertTrue(
                error?.message.contains(world.pin(sshd).fingerprintForTest) == true, "\(String(describing: error))")
            XCTAssertTrue(error?.hint?.contains("sshelf trust target --replace") == true)
        }
        XCTAssertTrue(world.delegate.questions.isEmpty)
        XCTAssertNil(world.journal.index(of: "lookup"), "no credential read: \(world.journal.entries)")
        sshd.waitForConnectionsEnded()
        XCTAssertFalse(sshd.log.contains("userauth-request"), "no auth attempted:\n\(sshd.log)")
        XCTAssertFalse(sshd.log.contains("Accepted"), sshd.log)
    }

    func testChangedKeyInKnownHostsIsAlsoAHardFailure() throws {
        let sshd = try server()
        let impostor = try TestKey.generate(.ed25519).publicLine.split(separator: " ").prefix(2).joined(separator: " ")
        let world = SSHWorld()
        try "\(sshd.knownHostsName) \(impostor)\n".write(
            toFile: world.userKnownHosts, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try world.connector.connect([world.endpoint(sshd)])) { error in
            XCTAssertEqual((error as? SSHError)?.kind, .hostKeyChanged)
        }
    }

    func testKnownOnlyUnderAnotherTypeNeedsConfirmation() throws {
        let sshd = try server([.ed25519])
        let ecdsa = try TestKey.generate(.ecdsa).publicLine.split(separator: " ").prefix(2).joined(separator: " ")
        let world = SSHWorld()
        try "\(sshd.knownHostsName) \(ecdsa)\n".write(toFile: world.userKnownHosts, atomically: true, encoding: .utf8)
        world.delegate.hostKeyDecision = .refuse
        XCTAssertThrowsError(try world.connector.connect([world.endpoint(sshd)])) { error in
            XCTAssertEqual((error as? SSHError)?.kind, .hostKeyOtherType, "\(error)")
        }
        XCTAssertEqual(
            world.delegate.questions.first?.reason,
            .otherType(knownTypes: ["ecdsa-sha2-nistp256"], source: .userKnownHosts))
        world.delegate.hostKeyDecision = .acceptOnce
        let identity = world.vaultIdentity(key, type: .ed25519)
        try world.connector.connect([world.endpoint(sshd, identity: identity)]).close()
    }

    func testKnownKeyTypeIsNegotiatedFirst() throws {
        // The server has ed25519 and ECDSA keys; we only know its ECDSA key, so ECDSA must be negotiated.
        let sshd = try server([.ed25519, .ecdsa])
        let world = SSHWorld()
        try "\(sshd.knownHostsName) \(sshd.hostPublicKey(.ecdsa))\n"
            .write(toFile: world.userKnownHosts, atomically: true, encoding: .utf8)
        let identity = world.vaultIdentity(key, type: .ed25519)
        try world.connector.connect([world.endpoint(sshd, identity: identity)]).close()
        XCTAssertTrue(world.delegate.questions.isEmpty, "trusted without asking: \(world.delegate.questions)")
    }

    func testHashedUserKnownHostsEntryIsTrusted() throws {
        let sshd = try server()
        let world = SSHWorld()
        try "\(sshd.knownHostsName) \(sshd.hostPublicKey(.ed25519))\n"
            .write(toFile: world.userKnownHosts, atomically: true, encoding: .utf8)
        try Shell.run(TestTool.sshKeygen.path, ["-H", "-f", world.userKnownHosts])
        XCTAssertTrue(try String(contentsOfFile: world.userKnownHosts, encoding: .utf8).hasPrefix("|1|"))
        let identity = world.vaultIdentity(key, type: .ed25519)
        try world.connector.connect([world.endpoint(sshd, identity: identity)]).close()
        XCTAssertTrue(world.delegate.questions.isEmpty)
    }
}

extension PinnedHostKey {
    var fingerprintForTest: String { HostKey(pinned: self)?.fingerprint ?? "?" }
}
