// JumpTests: jump chains over direct-tcpip. The target listens on an address the client is never given (only
// the last jump host is told to reach it); the jump hosts' sshd logs prove each tunnel, and each hop's host key is
// checked on its own.
import Foundation
import ShelfCore
import ShelfSSH
import TestSupport
import XCTest

final class JumpTests: XCTestCase {
    override func setUpWithError() throws { try TestAccount.ensure() }

    func testTwoJumpHostsThenTheTarget() throws {
        let key = try TestKey.generate(.ed25519)
        var options = SSHD.Options()
        options.authorizedKeys = [key.publicLine]
        let jump1 = try SSHD.start(options)
        options.listenAddress = "127.0.0.2"
        let jump2 = try SSHD.start(options)
        options.listenAddress = "127.0.0.3"
        let target = try SSHD.start(options)
        let world = SSHWorld()
        let identity = world.vaultIdentity(key, type: .ed25519)
        let hops = [
            world.endpoint(jump1, name: "jump1", identity: identity, pinned: world.pin(jump1)),
            world.endpoint(jump2, name: "jump2", identity: identity, pinned: world.pin(jump2)),
            world.endpoint(target, name: "target", identity: identity, pinned: world.pin(target)),
        ]
        let connection = try world.connector.connect(hops)
        XCTAssertEqual(connection.outcome.methods, ["publickey", "publickey", "publickey"])
        let (status, out, _) = try SSHWorld.run(connection, "echo through the chain")
        XCTAssertEqual(status, .status(0))
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "through the chain\n")
        // Verification order: each hop's key is checked before that hop's key is looked up.
        let entries = world.journal.entries
        for name in ["jump1", "jump2", "target"] {
            XCTAssertNotNil(entries.firstIndex(of: "verified \(name)"), "\(entries)")
        }
        XCTAssertEqual(
            entries.filter { $0.hasPrefix("verified") }, ["verified jump1", "verified jump2", "verified target"])
        // Each lookup carried the VerifiedSession of its own hop, with the key that hop's server proved it holds.
        XCTAssertEqual(world.source.lookups.map(\.hop), ["jump1", "jump2", "target"])
        XCTAssertEqual(
            world.source.lookups.map(\.fingerprint),
            [world.pin(jump1), world.pin(jump2), world.pin(target)].map(\.fingerprintForTest))
        connection.close()

        XCTAssertTrue(jump1.waitForLog("direct-tcpip"), jump1.log)
        XCTAssertTrue(jump1.log.contains("target 127.0.0.2 port \(jump2.port)"), jump1.log)
        XCTAssertTrue(jump2.waitForLog("target 127.0.0.3 port \(target.port)"), jump2.log)
        XCTAssertTrue(target.waitForLog("Accepted publickey for \(TestAccount.name)"), target.log)
        XCTAssertFalse(jump1.log.contains("127.0.0.3"), "the first jump host never saw the target's address")
    }

    func testChangedKeyOnTheInnerHopStopsBeforeItsAuth() throws {
        let key = try TestKey.generate(.ed25519)
        var options = SSHD.Options()
        options.authorizedKeys = [key.publicLine]
        let jump = try SSHD.start(options)
        let target = try SSHD.start(options)
        let world = SSHWorld()
        let identity = world.vaultIdentity(key, type: .ed25519)
        let hops = [
            world.endpoint(jump, name: "jump", identity: identity, pinned: world.pin(jump)),
            world.endpoint(target, name: "target", identity: identity, pinned: world.pin(jump)),  // wrong pin
        ]
        XCTAssertThrowsError(try world.connector.connect(hops)) {
            XCTAssertEqual(($0 as? SSHError)?.kind, .hostKeyChanged)
        }
        XCTAssertEqual(
            world.journal.entries.filter { $0.hasPrefix("lookup") }.count, 1, "only the jump host's key was read")
        target.waitForConnectionsEnded()
        XCTAssertFalse(target.log.contains("userauth-request"), target.log)
    }
}
