// KeyBeforeMethodsTests: a fleet login (ConnectOptions.keyBeforeMethods) sends its first key without asking the server
// for its methods first — one round trip less per host — and, when that key is refused, asks then and goes on as any
// login does. Against a real sshd, whose log shows each userauth request.
import ShelfCore
import ShelfSSH
import TestSupport
import XCTest

final class KeyBeforeMethodsTests: XCTestCase {
    override func setUpWithError() throws { try TestAccount.ensure() }

    private func connector(_ world: SSHWorld, keyFirst: Bool) -> SSHConnector {
        var options = ConnectOptions(trust: world.trust, connectTimeout: Deadline.scaled(Deadline.standard))
        options.keyBeforeMethods = keyFirst
        return SSHConnector(options: options, credentials: world.source, delegate: world.delegate)
    }

    /// The userauth requests sshd saw, in order ("none", "publickey", "password"), once it logged `logins` logins.
    private func requests(_ sshd: SSHD, logins: Int) -> [String] {
        XCTAssertTrue(sshd.waitForLog("Accepted ", count: logins), sshd.log)
        // sshd -E ends its lines with CR LF: one Character to Swift, so split at any line end.
        return sshd.log.split(whereSeparator: \.isNewline).compactMap { line in
            guard let range = line.range(of: "service ssh-connection method ") else { return nil }
            return String(line[range.upperBound...].prefix { $0 != " " })
        }
    }

    /// A real sshd that takes one ed25519 key, and a hop that logs in with it from the vault.
    private func keyedServer() throws -> (SSHD, SSHWorld, SSHEndpoint) {
        let key = try TestKey.generate(.ed25519)
        var options = SSHD.Options()
        options.authorizedKeys = [key.publicLine]
        let sshd = try SSHD.start(options)
        let world = SSHWorld()
        return (
            sshd, world,
            world.endpoint(sshd, identity: world.vaultIdentity(key, type: .ed25519), pinned: world.pin(sshd))
        )
    }

    func testTheFirstKeyGoesWithoutAskingForTheMethods() throws {
        let (sshd, world, hop) = try keyedServer()

        let fleet = try connector(world, keyFirst: true).connect([hop])
        XCTAssertEqual(fleet.outcome.methods, ["publickey"])
        fleet.close()
        // libssh2 asks whether the key would do, then sends it signed: two publickey requests, no "none" before them.
        XCTAssertEqual(requests(sshd, logins: 1), ["publickey", "publickey"], sshd.log)

        // A login someone watches asks first (the banner comes with the methods).
        let login = try connector(world, keyFirst: false).connect([hop])
        login.close()
        XCTAssertEqual(
            requests(sshd, logins: 2), ["publickey", "publickey", "none", "publickey", "publickey"], sshd.log)
    }

    /// Nothing but the login goes before the login: a keepalive then would be a protocol error to sshd, one line in
    /// the server's log (at INFO) for every login.
    func testNoKeepaliveBeforeTheLogin() throws {
        let (sshd, world, hop) = try keyedServer()
        let connection = try world.connector.connect([hop])
        XCTAssertEqual(try SSHWorld.run(connection, "echo in").1, Array("in\n".utf8))
        connection.close()
        XCTAssertTrue(sshd.waitForLog("Accepted publickey"), sshd.log)
        XCTAssertFalse(sshd.log.contains("dispatch_protocol_error"), sshd.log)
    }

    func testARefusedFirstKeyAsksForTheMethodsAndGoesOn() throws {
        let refused = try TestKey.generate(.ed25519)
        let sshd = try SSHD.start(SSHD.Options())
        let world = SSHWorld()
        world.delegate.passwords = [TestAccount.password]
        let hop = world.endpoint(sshd, identity: world.vaultIdentity(refused, type: .ed25519), pinned: world.pin(sshd))
        let connection = try connector(world, keyFirst: true).connect([hop])
        XCTAssertEqual(connection.outcome.methods, ["password"])
        connection.close()
        XCTAssertEqual(requests(sshd, logins: 1), ["publickey", "none", "password"], sshd.log)
    }

    func testAPlanWithoutAKeyOfItsOwnAsksFirst() throws {
        let sshd = try SSHD.start(SSHD.Options())
        let world = SSHWorld()
        world.delegate.passwords = [TestAccount.password]
        let hop = world.endpoint(sshd, auth: .password, pinned: world.pin(sshd))
        let connection = try connector(world, keyFirst: true).connect([hop])
        XCTAssertEqual(connection.outcome.methods, ["password"])
        connection.close()
        XCTAssertEqual(requests(sshd, logins: 1), ["none", "password"], "no key in the plan: the methods first")
    }
}
