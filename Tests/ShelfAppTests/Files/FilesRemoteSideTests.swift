// FilesRemoteSideTests: a request to the host's side after its thread has ended (the connection broke, or SFTP
// never started) is answered at once with what to do — before, `r` left the run loop expecting an answer nobody
// would send (polling every 2 ms until the pane closed), a copy stayed `queued` and a change was never made or said.
// The side's SFTP start is the one fault caused here without a server: it fails, and the thread ends as on a loss.
import Foundation
import ShelfOperations
import ShelfSSH
@testable import ShelfTUIApp
@testable import ShelfUI
import TestSupport
import XCTest

final class FilesRemoteSideTests: XCTestCase {
    /// Takes the mailbox's actions until one `accept` takes (within the standard deadline).
    private func take(_ mailbox: Mailbox, _ what: String, _ accept: (Action) -> Bool) -> Action? {
        var found: Action?
        _ = waitUntil {
            found = mailbox.take().first(where: accept)
            return found != nil
        }
        XCTAssertNotNil(found, what)
        return found
    }

    func testARequestAfterTheSideEndedIsAnsweredAtOnce() throws {
        let home = TempHome()
        let log = FilesReleaseLog(
            host: "a", hostID: UUID(), fingerprint: nil,
            workspace: Workspace(environment: home.environment, warn: { _ in }))
        let mailbox = Mailbox()
        let side = FilesRemoteSide(
            hostID: log.hostID, log: log, mailbox: mailbox,
            open: { throw SSHError(.disconnected, "the connection was closed") }, end: {})
        side.start(nil)
        _ = take(mailbox, "the side said it has no file access") {
            if case .filesConnected(_, let failure?) = $0 { return failure.contains("no file access") }
            return false
        }
        XCTAssertFalse(mailbox.isExpecting)

        // `r` (a listing): answered with the reason, nothing left expected.
        side.list(Array("/home".utf8), generation: 2)
        XCTAssertFalse(mailbox.isExpecting, "the run loop would wait for a listing nobody sends")
        let listed = take(mailbox, "the listing answered") {
            if case .filesListed(let listing) = $0 { return listing.generation == 2 }
            return false
        }
        guard case .filesListed(let listing)? = listed else { return }
        XCTAssertEqual(listing.error, FilesRemoteSide.ended)
        XCTAssertTrue(listing.complete)

        // A change and a copy: each said to have failed, none left waiting.
        side.change(.makeFolder(Array("/home/new".utf8)))
        XCTAssertFalse(mailbox.isExpecting, "the run loop would wait for a change nobody makes")
        _ = take(mailbox, "the change refused") {
            if case .filesChanged(.remote, .failure(let failure)) = $0 {
                return failure.message == FilesRemoteSide.ended
            }
            return false
        }
        side.copy(
            FilesTransfer.Request(
                id: 7, direction: .download, sources: [Array("/home/x".utf8)], destination: Array("/tmp".utf8),
                total: nil))
        _ = take(mailbox, "the copy failed, not left queued") {
            if case .filesTransfer(7, .failed, _, _, let detail) = $0 { return detail == FilesRemoteSide.ended }
            return false
        }
    }
}
