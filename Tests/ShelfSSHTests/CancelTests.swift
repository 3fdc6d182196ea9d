// Cancelling a connect from another thread (the TUI's Esc) against real listeners, and the changed-key error's
// structured detail (what the TUI's dialog shows): both keys, where the known one came from, the hop's record.
import Foundation
import ShelfCore
import ShelfSSH
import TestSupport
import XCTest

final class CancelTests: XCTestCase {
    override func setUpWithError() throws { try TestAccount.ensure() }

    /// Runs `connect` on a thread; returns a box that holds its error once it has returned.
    private func connectInBackground(_ connector: SSHConnector, _ hop: SSHEndpoint) -> ResultBox {
        let box = ResultBox()
        /// The connector moves to the thread, which alone uses it from then on.
        final class Carry: @unchecked Sendable {
            let connector: SSHConnector
            init(_ connector: SSHConnector) { self.connector = connector }
        }
        let carry = Carry(connector)
        let thread = Thread {
            do {
                let connection = try carry.connector.connect([hop])
                connection.close()
                box.set(nil)
            } catch {
                box.set(error as? SSHError)
            }
        }
        thread.start()
        return box
    }

    func testACancelledHandshakeWithASilentServerEndsAsCancelledAndSendsNothingMore() throws {
        let silent = try RecordingListener()
        let world = SSHWorld()
        let cancellation = ConnectCancellation()
        // A long timeout: only the cancel can end this attempt within the test's deadline.
        var options = ConnectOptions(trust: world.trust, connectTimeout: 600)
        options.cancellation = cancellation
        let connector = SSHConnector(options: options, credentials: world.source, delegate: world.delegate)
        let hop = SSHEndpoint(name: "mute", hostname: "127.0.0.1", port: silent.port, user: "x")
        let box = connectInBackground(connector, hop)
        // In the handshake: the client's banner arrived, and the client waits for the server's.
        try eventually("the client's banner", observe: { silent.received }, until: { $0.hasPrefix("SSH-2.0-") })
        cancellation.cancel()
        let error = try eventually("the attempt to end", observe: { box.result }, until: { $0 != nil })
        XCTAssertEqual(error??.kind, .cancelled, "\(String(describing: error))")
        try eventually("the socket closed", observe: { silent.closed }, until: { $0 })
        XCTAssertEqual(
            silent.received.split(separator: "\r\n").count, 1, "only the banner: \(silent.received.debugDescription)")
        XCTAssertTrue(
            world.journal.entries.allSatisfy {
                !$0.hasPrefix("decide") && !$0.hasPrefix("ask") && !$0.hasPrefix("lookup")
            },
            "nothing was asked or looked up: \(world.journal.entries)")
    }

    func testCancellingBeforeTheAttemptStartsConnectsNowhere() throws {
        let sshd = try SSHD.start()
        let world = SSHWorld()
        let cancellation = ConnectCancellation()
        cancellation.cancel()
        var options = ConnectOptions(trust: world.trust, connectTimeout: 5)
        options.cancellation = cancellation
        let connector = SSHConnector(options: options, credentials: world.source, delegate: world.delegate)
        XCTAssertThrowsError(try connector.connect([world.endpoint(sshd, pinned: world.pin(sshd))])) { error in
            XCTAssertEqual((error as? SSHError)?.kind, .cancelled, "\(error)")
        }
        XCTAssertEqual(sshd.logCount("Connection from"), 0, sshd.log)
    }

    func testAChangedKeyErrorCarriesBothKeysAndWhereTheKnownOneCameFrom() throws {
        let sshd = try SSHD.start()
        let other = try SSHD.start()
        let world = SSHWorld()
        // Pinned: the other server's key; offered: this one's.
        let hop = world.endpoint(sshd, pinned: world.pin(other))
        XCTAssertThrowsError(try world.connector.connect([hop])) { error in
            let error = error as? SSHError
            XCTAssertEqual(error?.kind, .hostKeyChanged)
            let change = error?.hostKeyChange
            XCTAssertEqual(change?.hopName, "target")
            XCTAssertEqual(change?.hostID, hop.hostID)
            XCTAssertEqual(change?.source, .pinned)
            XCTAssertEqual(change?.offered.knownHostsLine(for: "x"), "x " + sshd.hostPublicKey(.ed25519))
            XCTAssertEqual(change?.known.map { $0.knownHostsLine(for: "x") }, ["x " + other.hostPublicKey(.ed25519)])
        }
        sshd.waitForConnectionsEnded()
        XCTAssertFalse(sshd.log.contains("userauth-request"), "nothing sent after the key: \(sshd.log)")
    }
}

/// The outcome of a connect on another thread: nil until it returned, then its error (nil inside: success).
final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: SSHError??

    func set(_ error: SSHError?) {
        lock.lock()
        stored = .some(error)
        lock.unlock()
    }

    var result: SSHError?? {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}
