// ForwardToggleTests: `t` on a forward rule — where it works and why not elsewhere, start then stop, a rule run
// by `forward up` left alone, a non-loopback bind confirmed first — and the state line's words.
import Foundation
import ShelfCore
@testable import ShelfUI
import XCTest

final class ForwardToggleTests: XCTestCase {
    /// web-eu-1 selected with the forwards pane focused, on its first rule ("admin", -L 8080, enabled).
    func forwardsPane() -> UIState {
        var state = Fixtures.state(Fixtures.threeLevels())
        state.hostCursor = state.visible.firstIndex { state.catalog.host(at: Int($0)).name == "web-eu-1" }!
        Fixtures.press(&state, .char("l"))
        XCTAssertEqual(state.focus, .forwards)
        XCTAssertEqual(state.selectedRule?.id, Fixtures.id(200))
        return state
    }

    func testOnlyInTheForwardsPane() {
        var state = Fixtures.state(Fixtures.threeLevels())
        state.hostCursor = state.visible.firstIndex { state.catalog.host(at: Int($0)).name == "web-eu-1" }!
        XCTAssertEqual(Fixtures.press(&state, .char("t")), [])
        XCTAssertEqual(state.notice?.isError, true)
        XCTAssertTrue(
            state.notice?.text.contains("only in the forwards pane") == true, "\(String(describing: state.notice))")
    }

    func testStartsThenStops() {
        var state = forwardsPane()
        XCTAssertEqual(Fixtures.press(&state, .char("t")), [.startForward(Fixtures.id(200), allowPublicBind: false)])
        XCTAssertEqual(state.forwardStates[Fixtures.id(200)]?.phase, .starting)
        XCTAssertEqual(state.notice?.text, "starting -L 127.0.0.1:8080:localhost:80...")
        _ = Reducer.reduce(&state, .forwardStates([Fixtures.id(200): ForwardLive(phase: .active, runner: .tui)]))
        XCTAssertEqual(Fixtures.press(&state, .char("t")), [.stopForward(Fixtures.id(200))])
    }

    func testTheTitleSaysWhatTheStartAndTheStopCameTo() {
        var state = forwardsPane()
        let id = Fixtures.id(200)
        Fixtures.press(&state, .char("t"))
        _ = Reducer.reduce(&state, .forwardStates([id: ForwardLive(phase: .starting, runner: .tui)]))
        XCTAssertEqual(state.notice?.text, "starting -L 127.0.0.1:8080:localhost:80...")
        _ = Reducer.reduce(&state, .forwardStates([id: ForwardLive(phase: .active, runner: .tui, boundPort: 8080)]))
        XCTAssertEqual(state.notice, Notice("forwarding -L 127.0.0.1:8080:localhost:80"))
        XCTAssertTrue(Screen.render(state).line(0).contains("forwarding -L"), Screen.render(state).line(0))
        XCTAssertFalse(Screen.render(state).line(0).contains("starting"), Screen.render(state).line(0))

        Fixtures.press(&state, .char("t"))
        XCTAssertEqual(state.notice?.text, "stopping -L 127.0.0.1:8080:localhost:80...")
        _ = Reducer.reduce(&state, .forwardStates([id: ForwardLive(phase: .active, runner: .tui)]))
        XCTAssertEqual(state.notice?.text, "stopping -L 127.0.0.1:8080:localhost:80...", "a read from before the stop")
        _ = Reducer.reduce(&state, .forwardStates([:]))
        XCTAssertEqual(state.notice, Notice("stopped -L 127.0.0.1:8080:localhost:80"))
        // Settled: later reads leave the title alone.
        state.notice = Notice("sorted by name")
        _ = Reducer.reduce(&state, .forwardStates([id: ForwardLive(phase: .active, runner: .tui)]))
        XCTAssertEqual(state.notice, Notice("sorted by name"))
    }

    func testAStartThatFailsSaysWhyInTheTitle() {
        var state = forwardsPane()
        Fixtures.press(&state, .char("t"))
        _ = Reducer.reduce(
            &state,
            .forwardStates([
                Fixtures.id(200): ForwardLive(
                    phase: .failed, runner: .tui, lastError: "the host key of web-eu-1 is not known")
            ]))
        XCTAssertEqual(
            state.notice,
            Notice(
                "-L 127.0.0.1:8080:localhost:80 failed: the host key of web-eu-1 is not known", isError: true))
    }

    func testAConfirmedStartIsFollowedToo() {
        var state = forwardsPane()
        state.catalog.rulesByHost[Fixtures.id(101)]?[0].bindAddress = "0.0.0.0"
        Fixtures.press(&state, .char("t"), .char("y"))
        XCTAssertEqual(state.forwardStates[Fixtures.id(200)]?.phase, .starting)
        _ = Reducer.reduce(&state, .forwardStates([Fixtures.id(200): ForwardLive(phase: .active, runner: .tui)]))
        XCTAssertEqual(state.notice?.text, "forwarding -L 0.0.0.0:8080:localhost:80")
    }

    func testARuleRunByForwardStartInAnotherTerminalIsShownAndLeftAlone() {
        var state = forwardsPane()
        let live = ForwardLive(
            phase: .active, runner: .command(pid: 4242), totalConnections: 1, bytesOut: 3, bytesIn: 3)
        _ = Reducer.reduce(&state, .forwardStates([Fixtures.id(200): live]))
        XCTAssertEqual(
            live.words(now: Fixtures.now), "active (forward start, pid 4242): 0 open, 1 total, 3 B out, 3 B in")
        XCTAssertEqual(Fixtures.press(&state, .char("t")), [])
        XCTAssertEqual(
            state.notice,
            Notice(
                "start or stop the selected forward rule: run by 'sshelf forward start' (pid 4242), "
                    + "stopped where it runs",
                isError: true))
    }

    func testCountsAgree() {
        XCTAssertEqual(Counted.words(1, "connection"), "1 connection")
        XCTAssertEqual(Counted.words(0, "connection"), "0 connections")
        XCTAssertEqual(Counted.words(Int64(2), "byte"), "2 bytes")
    }

    func testAFailedRuleStartsAgain() {
        var state = forwardsPane()
        _ = Reducer.reduce(
            &state, .forwardStates([Fixtures.id(200): ForwardLive(phase: .failed, runner: .tui, lastError: "x")]))
        XCTAssertEqual(Fixtures.press(&state, .char("t")), [.startForward(Fixtures.id(200), allowPublicBind: false)])
    }

    func testARuleRunByTheSupervisorIsLeftAlone() {
        var state = forwardsPane()
        _ = Reducer.reduce(&state, .forwardStates([Fixtures.id(200): ForwardLive(phase: .active, runner: .supervisor)]))
        XCTAssertEqual(Fixtures.press(&state, .char("t")), [])
        XCTAssertTrue(
            state.notice?.text.contains("run by 'sshelf forward up'") == true, "\(String(describing: state.notice))")
    }

    func testADisabledRuleDoesNotStart() {
        var state = forwardsPane()
        Fixtures.press(&state, .char("j"))
        XCTAssertEqual(state.selectedRule?.id, Fixtures.id(201))
        XCTAssertEqual(Fixtures.press(&state, .char("t")), [])
        XCTAssertTrue(
            state.notice?.text.contains("the rule is disabled") == true, "\(String(describing: state.notice))")
    }

    func testNonLoopbackBindIsConfirmedFirst() {
        var state = forwardsPane()
        state.catalog.rulesByHost[Fixtures.id(101)]?[0].bindAddress = "0.0.0.0"
        XCTAssertEqual(Fixtures.press(&state, .char("t")), [], "nothing starts before the answer")
        guard case .confirm(let confirmation) = state.mode else { return XCTFail("no confirmation: \(state.mode)") }
        XCTAssertTrue(confirmation.lines.joined(separator: " ").contains("reachable from other machines"))
        XCTAssertEqual(Fixtures.press(&state, .char("n")), [])
        XCTAssertEqual(state.notice?.text, "not started")
        XCTAssertNil(state.forwardStates[Fixtures.id(200)])
        Fixtures.press(&state, .char("t"))
        XCTAssertEqual(Fixtures.press(&state, .char("y")), [.startForward(Fixtures.id(200), allowPublicBind: true)])
    }

    func testLoopbackAddresses() {
        for address in ["127.0.0.1", "127.9.8.7", "localhost", "::1"] {
            XCTAssertFalse(PortForwardRule(kind: .local, bindAddress: address).listensOnNetwork, address)
        }
        for address in ["0.0.0.0", "192.168.1.5", "::", "*"] {
            XCTAssertTrue(PortForwardRule(kind: .dynamic, bindAddress: address).listensOnNetwork, address)
            XCTAssertFalse(
                PortForwardRule(kind: .remote, bindAddress: address).listensOnNetwork,
                "-R listens on the server, whose GatewayPorts decides: \(address)")
        }
    }

    func testStateWords() {
        let now = Fixtures.now
        XCTAssertEqual(
            ForwardLive(
                phase: .active, runner: .tui, activeConnections: 1, totalConnections: 3,
                bytesOut: 1536, bytesIn: 12
            ).words(now: now),
            "active: 1 open, 3 total, 1.5 KB out, 12 B in")
        XCTAssertEqual(
            ForwardLive(
                phase: .retrying, runner: .supervisor, lastError: "connection refused",
                nextAttempt: now.addingTimeInterval(7.2)
            ).words(now: now),
            "retrying in 8 s (forward up): connection refused")
        XCTAssertEqual(
            ForwardLive(phase: .failed, runner: .tui, lastError: "host key changed").words(now: now),
            "failed: host key changed")
        XCTAssertEqual(ForwardLive.bytes(3 << 30), "3.0 GB")
    }

    func testWrapKeepsEveryWordAndFitsTheWidth() {
        let text = "active: 12 open, 340 total, 1.2 MB out, 340.0 KB in; last error: connection refused by peer"
        let lines = DetailsView.wrap(text, width: 30, lines: 3)
        XCTAssertEqual(lines.joined(separator: " "), text)
        XCTAssertEqual(lines.count, 3)
        XCTAssertEqual(lines[1], "1.2 MB out, 340.0 KB in;", "broken after punctuation, units kept with numbers")
        for (i, line) in lines.dropLast().enumerated() { XCTAssertLessThanOrEqual(line.count, i == 0 ? 30 : 28, line) }
        XCTAssertEqual(DetailsView.wrap("not running", width: 30, lines: 3), ["not running"])
        // An address has no space: it breaks after the user, never inside the port.
        XCTAssertEqual(
            DetailsView.wrap("deploy-bench-4685@127.0.0.1:51377", width: 30, lines: 3),
            ["deploy-bench-4685@", "127.0.0.1:51377"])
    }
}
