// ProbeSchedulerTests: which reachability probes run and when, on an injected clock — the rows on screen plus a
// margin and no others, each address again only after the refresh interval, never more than the concurrency bound at
// once, results of hosts scrolled away forgotten once stale; and where a host is probed (its own address, its first
// jump hop's, an unresolved ProxyJump's first hop) and the words shown.
import Foundation
import ShelfCore
import XCTest

final class ProbeSchedulerTests: XCTestCase {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    func testTheWindowIsTheRowsOnScreenThenTheMarginBelowThenAbove() {
        // 100 rows, rows 40..<50 on screen, a margin of 3.
        XCTAssertEqual(
            ProbeScheduler<Int>.window(count: 100, first: 40, rows: 10, margin: 3),
            Array(40..<50) + [50, 51, 52] + [39, 38, 37])
        // At the top there is nothing above; at the end nothing below.
        XCTAssertEqual(ProbeScheduler<Int>.window(count: 100, first: 0, rows: 5, margin: 2), [0, 1, 2, 3, 4, 5, 6])
        XCTAssertEqual(ProbeScheduler<Int>.window(count: 12, first: 8, rows: 10, margin: 2), [8, 9, 10, 11, 7, 6])
        XCTAssertEqual(ProbeScheduler<Int>.window(count: 0, first: 0, rows: 10, margin: 10), [])
        // Never more than the rows on screen plus twice the margin, however long the list.
        XCTAssertEqual(ProbeScheduler<Int>.window(count: 100_000, first: 5_000, rows: 20, margin: 10).count, 40)
    }

    func testOnlyTrackedTargetsAreProbedAndEachOnce() {
        var scheduler = ProbeScheduler<String>(interval: 30, limit: 16)
        scheduler.track(["a", "b", "a", "c"], now: t0)
        XCTAssertEqual(scheduler.wanted, ["a", "b", "c"], "duplicates count once")
        XCTAssertEqual(scheduler.start(now: t0), ["a", "b", "c"])
        XCTAssertEqual(scheduler.start(now: t0), [], "a probe under way is not started again")
        XCTAssertNil(scheduler.nextDue(now: t0), "everything wanted is under way")
    }

    func testATargetIsProbedAgainOnlyAfterTheInterval() {
        var scheduler = ProbeScheduler<String>(interval: 30, limit: 16)
        scheduler.track(["a", "b"], now: t0)
        _ = scheduler.start(now: t0)
        scheduler.finished("a", now: t0.addingTimeInterval(1))
        scheduler.finished("b", now: t0.addingTimeInterval(2))
        XCTAssertEqual(scheduler.nextDue(now: t0.addingTimeInterval(2)), t0.addingTimeInterval(31))
        XCTAssertEqual(scheduler.start(now: t0.addingTimeInterval(30.9)), [], "not yet due")
        XCTAssertEqual(scheduler.start(now: t0.addingTimeInterval(31)), ["a"])
        XCTAssertEqual(scheduler.start(now: t0.addingTimeInterval(31.5)), [])
        XCTAssertEqual(scheduler.start(now: t0.addingTimeInterval(32)), ["b"])
        // Over ten minutes, one probe every 30 s per target: twenty each, whatever the caller's pace.
        var clock = t0.addingTimeInterval(32)
        var started = 0
        scheduler.finished("a", now: clock)
        scheduler.finished("b", now: clock)
        for _ in 0..<600 {
            clock = clock.addingTimeInterval(1)
            for target in scheduler.start(now: clock) {
                started += 1
                scheduler.finished(target, now: clock)
            }
        }
        XCTAssertEqual(started, 40)
    }

    func testNeverMoreThanTheLimitAtOnceAndTheScreenFirst() {
        var scheduler = ProbeScheduler<Int>(interval: 30, limit: 16)
        // The window's order: on screen first, then the margin.
        scheduler.track(Array(0..<40), now: t0)
        let first = scheduler.start(now: t0)
        XCTAssertEqual(first, Array(0..<16))
        XCTAssertEqual(scheduler.start(now: t0), [], "the bound is reached")
        scheduler.finished(3, now: t0)
        scheduler.finished(7, now: t0)
        XCTAssertEqual(scheduler.start(now: t0), [16, 17], "one starts for each that ended")
        XCTAssertEqual(scheduler.running.count, 16)
        // A probe of a target that scrolled away still counts until it ends.
        scheduler.track(Array(100..<140), now: t0)
        XCTAssertEqual(scheduler.start(now: t0), [])
        for target in scheduler.running { scheduler.finished(target, now: t0) }
        XCTAssertEqual(scheduler.start(now: t0), Array(100..<116))
    }

    func testScrollingAwayForgetsOnlyStaleResultsAndNewRowsAreProbedAtOnce() {
        var scheduler = ProbeScheduler<String>(interval: 30, limit: 16)
        scheduler.track(["a", "b"], now: t0)
        _ = scheduler.start(now: t0)
        scheduler.finished("a", now: t0)
        scheduler.finished("b", now: t0.addingTimeInterval(20))
        // Scrolled on: c is new and probed at once; a's result is 30 s old and forgotten, b's kept.
        XCTAssertEqual(scheduler.track(["c"], now: t0.addingTimeInterval(30)), ["a"])
        XCTAssertEqual(scheduler.start(now: t0.addingTimeInterval(30)), ["c"])
        XCTAssertFalse(scheduler.hasResult("a"))
        XCTAssertTrue(scheduler.hasResult("b"))
        // Back within b's interval: b is not probed again yet.
        scheduler.track(["b", "c"], now: t0.addingTimeInterval(31))
        XCTAssertEqual(scheduler.start(now: t0.addingTimeInterval(31)), [])
        XCTAssertEqual(scheduler.start(now: t0.addingTimeInterval(50)), ["b"])
    }

    func testAHostIsProbedAtItsAddressOrItsFirstJumpHop() {
        let bastion = Host(name: "bastion", hostname: "10.0.0.1", port: 2022)
        let inner = Host(name: "inner", hostname: "10.9.9.9", jumpHostIDs: [bastion.id, UUID()])
        let bare = Host(name: "bare.example.com")
        var dangling = Host(name: "dangling", hostname: "10.9.9.8")
        dangling.jumpHostIDs = [UUID()]
        var proxied = Host(name: "proxied", hostname: "10.9.9.7")
        proxied.unresolvedJump = "ops@[2001:db8::1]:2200,other"
        var builder = HostTableBuilder(expectedCount: 5)
        for host in [bastion, inner, bare, dangling, proxied] { builder.append(host) }
        let table = builder.finish(token: [])
        func target(_ name: String) -> ProbeTarget? {
            ProbeTarget.of(table, row: (0..<table.count).first { table.name($0) == name }!)
        }
        XCTAssertEqual(target("bastion"), ProbeTarget(hostname: "10.0.0.1", port: 2022))
        XCTAssertEqual(target("inner"), ProbeTarget(hostname: "10.0.0.1", port: 2022, via: "bastion"))
        XCTAssertEqual(target("bare.example.com"), ProbeTarget(hostname: "bare.example.com", port: 22))
        XCTAssertNil(target("dangling"), "a jump host that is not in the store: nothing to probe")
        XCTAssertEqual(
            target("proxied"),
            ProbeTarget(hostname: "2001:db8::1", port: 2200, via: "ops@[2001:db8::1]:2200"))
    }

    func testTheWordsForEachState() {
        XCTAssertEqual(Reachability.unknown.words, "?")
        XCTAssertEqual(Reachability.probing.words, "probing")
        XCTAssertEqual(Reachability.up(milliseconds: 0.04).words, "up 0.0 ms")
        XCTAssertEqual(Reachability.up(milliseconds: 3.46).words, "up 3.5 ms")
        XCTAssertEqual(Reachability.up(milliseconds: 9.96).words, "up 10 ms")
        XCTAssertEqual(Reachability.up(milliseconds: 123.4).words, "up 123 ms")
        XCTAssertEqual(Reachability.down(.refused).words, "down: refused")
        XCTAssertEqual(Reachability.down(.timeout).words, "down: timeout")
        XCTAssertEqual(Reachability.down(.noSuchName).words, "down: no such name")
        XCTAssertEqual(Reachability.down(.refused).words(via: "bastion"), "down: refused via bastion")
        XCTAssertEqual(Reachability.unknown.words(via: "bastion"), "?")
    }
}
