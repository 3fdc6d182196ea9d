// ForwardLinkTests: the per-direction states of one forwarded connection — each direction ends on its own (source
// EOF, then the sink told), EOF one way keeps the other flowing, the link finishes when both are over, and a failure
// stops both at once and is reported once. The engine's behaviour over real sockets is ForwardEngineTests' and
// ForwardSocksTests'.
import Foundation
@testable import ShelfSSH
import XCTest

final class ForwardLinkTests: XCTestCase {
    private func link() -> ForwardLink { ForwardLink(id: 1, forward: 0, fd: -1, channel: nil, phase: .open) }

    func testANewLinkFlowsBothWays() {
        let link = link()
        XCTAssertEqual(link.upstream, .open)
        XCTAssertEqual(link.downstream, .open)
        XCTAssertTrue(link.reads(.upstream))
        XCTAssertTrue(link.reads(.downstream))
        XCTAssertFalse(link.mustTellEnd(.upstream))
        XCTAssertFalse(link.isFinished)
        XCTAssertFalse(link.failed)
    }

    func testTheClientsEOFHalfClosesUpstreamOnly() {
        let link = link()
        link.sourceEnded(.upstream)
        XCTAssertEqual(link.upstream, .draining)
        XCTAssertFalse(link.reads(.upstream), "no more reads from the client")
        XCTAssertTrue(link.mustTellEnd(.upstream), "EOF is still to be sent on the channel")
        XCTAssertTrue(link.reads(.downstream), "the server's data keeps flowing")
        link.endTold(.upstream)
        XCTAssertEqual(link.upstream, .closed)
        XCTAssertFalse(link.mustTellEnd(.upstream), "EOF is sent once")
        XCTAssertFalse(link.isFinished, "the other direction is still open")
        link.sourceEnded(.downstream)
        link.endTold(.downstream)
        XCTAssertTrue(link.isFinished)
    }

    func testTheServersEOFHalfClosesDownstreamOnly() {
        let link = link()
        link.sourceEnded(.downstream)
        XCTAssertEqual(link.downstream, .draining)
        XCTAssertTrue(link.mustTellEnd(.downstream), "the socket's write side is still to be shut")
        XCTAssertTrue(link.reads(.upstream), "the client's data keeps flowing")
        link.endTold(.downstream)
        XCTAssertEqual(link.downstream, .closed)
        XCTAssertFalse(link.isFinished)
        link.sourceEnded(.upstream)
        XCTAssertFalse(link.isFinished, "finished only once the channel was told too")
        link.endTold(.upstream)
        XCTAssertTrue(link.isFinished)
    }

    func testTheEndIsToldOnlyAfterTheSourceEndedAndEOFIsRepeatedHarmlessly() {
        let link = link()
        link.endTold(.upstream)
        XCTAssertEqual(link.upstream, .open, "no EOF before the client's")
        link.sourceEnded(.upstream)
        link.sourceEnded(.upstream)
        XCTAssertEqual(link.upstream, .draining)
        link.endTold(.upstream)
        link.sourceEnded(.upstream)
        XCTAssertEqual(link.upstream, .closed, "a late EOF does not reopen anything")
    }

    func testAnErrorStopsBothDirectionsOnceFromAnyState() {
        let halfClosed = link()
        halfClosed.sourceEnded(.upstream)
        halfClosed.endTold(.upstream)
        XCTAssertTrue(halfClosed.fail(), "the first failure is reported")
        XCTAssertFalse(halfClosed.fail(), "a second one is not")
        for direction in [ForwardLink.Direction.upstream, .downstream] {
            XCTAssertFalse(halfClosed.reads(direction))
            XCTAssertFalse(halfClosed.mustTellEnd(direction), "a failed link tells nobody an orderly end")
        }
        XCTAssertEqual(halfClosed.upstream, .failed)
        XCTAssertEqual(halfClosed.downstream, .failed)
        XCTAssertTrue(halfClosed.isFinished)
        halfClosed.sourceEnded(.downstream)
        halfClosed.endTold(.downstream)
        XCTAssertEqual(halfClosed.downstream, .failed, "nothing leaves the failed state")

        let fresh = link()
        XCTAssertTrue(fresh.fail())
        XCTAssertTrue(fresh.failed)
        XCTAssertTrue(fresh.isFinished)
    }
}
