// ConnectTests: the basic path against a real sshd — connect, verify a pinned key, log in, run a command — and
// the typed errors for refused connections and unresolvable names.
import ShelfCore
import ShelfSSH
import TestSupport
import XCTest

final class ConnectTests: XCTestCase {
    override func setUpWithError() throws { try TestAccount.ensure() }

    func testPinnedKeyAndEd25519KeyFromTheVaultRunsACommand() throws {
        let key = try TestKey.generate(.ed25519)
        var options = SSHD.Options()
        options.authorizedKeys = [key.publicLine]
        let sshd = try SSHD.start(options)
        let world = SSHWorld()
        let identity = world.vaultIdentity(key, type: .ed25519)
        let connection = try world.connector.connect([
            world.endpoint(sshd, auth: .publickey, identity: identity, pinned: world.pin(sshd))
        ])
        let (status, out, _) = try SSHWorld.run(connection, "echo hello; whoami")
        XCTAssertEqual(status, .status(0))
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "hello\n\(TestAccount.name)\n")
        XCTAssertEqual(connection.outcome.methods, ["publickey"])
        connection.close()
        XCTAssertTrue(sshd.log.contains("Accepted publickey for \(TestAccount.name)"), sshd.log)
    }

    func testRefusedConnectionIsTyped() throws {
        let port = try SSHDPort.unused()
        let world = SSHWorld()
        let hop = SSHEndpoint(name: "nothing", hostname: "127.0.0.1", port: port, user: "x")
        XCTAssertThrowsError(try world.connector.connect([hop])) { error in
            XCTAssertEqual((error as? SSHError)?.kind, .connectionRefused, "\(error)")
        }
    }

    func testUnresolvableNameIsTyped() throws {
        let world = SSHWorld()
        let hop = SSHEndpoint(name: "bad", hostname: "no-such-host.invalid", port: 22, user: "x")
        XCTAssertThrowsError(try world.connector.connect([hop])) { error in
            XCTAssertEqual((error as? SSHError)?.kind, .resolveFailed, "\(error)")
        }
    }
}

enum SSHDPort {
    /// A loopback port nothing listens on (bound, then released).
    static func unused() throws -> Int {
        let sshd = try SSHD.start()
        let port = sshd.port
        sshd.stop()
        return port
    }
}

final class TransportTests: XCTestCase {
    override func setUpWithError() throws { try TestAccount.ensure() }

    func testIPv6Loopback() throws {
        let key = try TestKey.generate(.ed25519)
        var options = SSHD.Options()
        options.listenAddress = "::1"
        options.authorizedKeys = [key.publicLine]
        let sshd = try SSHD.start(options)
        let world = SSHWorld()
        let connection = try world.connector.connect([
            world.endpoint(sshd, identity: world.vaultIdentity(key, type: .ed25519), pinned: world.pin(sshd))
        ])
        let (status, out, _) = try SSHWorld.run(connection, "echo v6")
        XCTAssertEqual(status, .status(0))
        XCTAssertEqual(out, Array("v6\n".utf8))
        XCTAssertTrue(sshd.waitForLog("Connection from ::1"), sshd.log)
    }

    func testSilentServerTimesOutDuringTheHandshake() throws {
        let listener = try SilentListener()
        let world = SSHWorld()
        let hop = SSHEndpoint(name: "silent", hostname: "127.0.0.1", port: listener.port, user: "x")
        let connector = SSHConnector(
            options: ConnectOptions(trust: world.trust, connectTimeout: 1),
            credentials: world.source, delegate: world.delegate)
        XCTAssertThrowsError(try connector.connect([hop])) { error in
            XCTAssertEqual((error as? SSHError)?.kind, .timedOut, "\(error)")
        }
        XCTAssertNil(world.journal.index(of: "lookup"))
    }
}
