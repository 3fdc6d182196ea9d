// ForwardLinkTests: the phases of one forwarded connection — every event from every phase, the legal ones moving
// where the table says and every other one rejected with the phase unchanged — and the per-direction states: each
// direction ends on its own (source EOF, then the sink told), EOF one way keeps the other flowing, the link finishes
// when both are over, and a failure stops both at once and is reported once. The engine's behaviour over real
// sockets is ForwardEngineTests' and ForwardSocksTests'.
import Foundation
@testable import ShelfSSH
import XCTest

final class ForwardLinkTests: XCTestCase {
    /// Never dereferenced: the link only keeps and hands back its channel.
    private var channel: OpaquePointer { OpaquePointer(bitPattern: 0x1000)! }

    private func link() -> ForwardLink { link(in: .open) }

    /// A link brought to `phase` through its events only, as the engine brings it.
    private func link(in phase: ForwardLink.Phase) -> ForwardLink {
        let socks = ForwardLink(id: 1, forward: 0, fd: -1, start: .socks)
        let waiting = ForwardLink(id: 1, forward: 0, fd: -1, start: .waitingToOpen)
        do {
            switch phase {
            case .socks: return socks
            case .refusing: try socks.refuse(reply: [5, 1])
            case .waitingToOpen: return waiting
            case .opening: try waiting.beginOpening()
            case .connecting: return ForwardLink(id: 1, forward: 0, fd: -1, start: .connecting(channel: channel))
            case .open:
                try waiting.beginOpening()
                try waiting.channelOpened(channel)
            case .closing:
                try waiting.beginOpening()
                try waiting.channelOpened(channel)
                try waiting.close()
            case .done:
                try socks.socketFinished()
                return socks
            }
        } catch {
            XCTFail("could not reach \(phase): \(error)")
        }
        return phase == .refusing ? socks : waiting
    }

    /// Each event, the phases it applies to, and where it leads.
    private var moves:
        [(
            event: String, from: Set<ForwardLink.Phase>, to: ForwardLink.Phase,
            apply: (ForwardLink) throws(ForwardLink.InvalidMove) -> Void
        )]
    {
        let channel = channel
        return [
            (
                "socksConnect", [.socks], .waitingToOpen,
                { link throws(ForwardLink.InvalidMove) in
                    try link.socksConnect(host: "db", port: 5432)
                }
            ),
            (
                "refuse", [.socks, .opening], .refusing,
                { link throws(ForwardLink.InvalidMove) in
                    try link.refuse(reply: [5, 1])
                }
            ),
            (
                "socketFinished", [.socks, .refusing], .done,
                { link throws(ForwardLink.InvalidMove) in
                    try link.socketFinished()
                }
            ),
            (
                "beginOpening", [.waitingToOpen], .opening,
                { link throws(ForwardLink.InvalidMove) in
                    try link.beginOpening()
                }
            ),
            (
                "channelOpened", [.opening], .open,
                { link throws(ForwardLink.InvalidMove) in
                    try link.channelOpened(channel)
                }
            ),
            (
                "targetConnected", [.connecting], .open,
                { link throws(ForwardLink.InvalidMove) in
                    try link.targetConnected()
                }
            ),
            (
                "close", [.socks, .refusing, .waitingToOpen, .opening, .connecting, .open], .closing,
                {
                    link throws(ForwardLink.InvalidMove) in try link.close()
                }
            ),
            ("channelFreed", [.closing], .done, { link throws(ForwardLink.InvalidMove) in try link.channelFreed() }),
        ]
    }

    func testEveryEventFromEveryPhaseMovesAsTheTableSaysOrIsRejected() {
        for move in moves {
            for phase in ForwardLink.Phase.allCases {
                let link = link(in: phase)
                XCTAssertEqual(link.phase, phase)
                do {
                    try move.apply(link)
                    XCTAssertTrue(move.from.contains(phase), "\(move.event) must be rejected while \(phase)")
                    XCTAssertEqual(link.phase, move.to, "\(move.event) from \(phase)")
                } catch {
                    XCTAssertFalse(move.from.contains(phase), "\(move.event) must apply while \(phase): \(error)")
                    XCTAssertEqual(error, ForwardLink.InvalidMove(event: error.event, phase: phase))
                    XCTAssertEqual(link.phase, phase, "a rejected \(move.event) leaves the link where it was")
                }
            }
        }
    }

    func testTheChannelIsKeptFromItsOpeningToItsFreeing() {
        let link = link(in: .opening)
        XCTAssertNil(link.channel)
        XCTAssertNoThrow(try link.channelOpened(channel))
        XCTAssertEqual(link.channel, channel)
        XCTAssertNoThrow(try link.close())
        XCTAssertEqual(link.channel, channel, "closing still has a channel to free")
        XCTAssertNoThrow(try link.channelFreed())
        XCTAssertNil(link.channel)
        XCTAssertEqual(
            ForwardLink(id: 2, forward: 0, fd: -1, start: .connecting(channel: channel)).channel,
            channel, "a -R link starts with the channel the server opened")
    }

    func testASOCKSRequestSetsTheTargetAndTheOpenMessage() throws {
        let link = link(in: .socks)
        try link.socksConnect(host: "db.internal", port: 5432)
        XCTAssertEqual(link.target, "db.internal:5432")
        XCTAssertEqual(link.openMessage, ForwardLink.directTCPIPMessage(host: "db.internal", port: 5432))
    }

    func testAbandoningFromAnyPhaseLeavesTheLinkClosingOrDoneAndHandsBackItsChannel() {
        for phase in ForwardLink.Phase.allCases {
            let link = link(in: phase)
            let hadChannel = link.channel
            XCTAssertEqual(link.abandon(), hadChannel, "from \(phase)")
            XCTAssertEqual(link.phase, hadChannel == nil ? .done : .closing, "from \(phase)")
            XCTAssertEqual(link.fd, -1)
        }
    }

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
