// ReachabilityWorker: the TUI's reachability probes in the background — the run loop says which hosts are in the
// probed window (on screen plus a margin), a ProbeScheduler picks what to probe and when (every 30 s per address, at
// most 16 at once), each probe runs on a pool thread, and the window's results go to the run loop's mailbox. A key
// never waits for a probe.
import Dispatch
import FoundationEssentials
import ShelfCore
import ShelfSSH
import ShelfUI

final class ReachabilityWorker: @unchecked Sendable {
    private let lock = Lock()
    private let mailbox: Mailbox
    private var scheduler = ProbeScheduler<ProbeTarget>(
        interval: ReachabilityColumn.refreshSeconds,
        limit: Reachability.concurrency)
    /// The last probe's outcome per address, for the targets the scheduler still tracks.
    private var results: [ProbeTarget: Reachability] = [:]
    /// The hosts of the window, in order, with where each is probed (nil: its jump host is missing).
    private var window: [Member] = []
    /// What was last sent to the run loop (nothing new: nothing sent, no redraw).
    private var posted: [UUID: HostReachability]?
    private let queue = DispatchQueue(label: "sshelf.reachability", attributes: .concurrent)

    struct Member: Equatable {
        var id: UUID
        var target: ProbeTarget?
    }

    /// `SSHELF_REACHABILITY=on|off|auto`: the column at start (unset: off — a TCP connect to every host on screen
    /// every 30 s is what an intrusion detector at work looks for; nothing is probed unless the user asks).
    static func start(_ environment: [String: String]) -> ReachabilityColumn.Start {
        ReachabilityColumn.Start(rawValue: environment["SSHELF_REACHABILITY"] ?? "") ?? .off
    }

    init(mailbox: Mailbox) {
        self.mailbox = mailbox
    }

    /// Called by the run loop after anything changed: follows the window (hosts scrolled into view are probed at
    /// once, those that left it no longer are). Cheap when the window is unchanged.
    func follow(_ state: UIState) {
        let table = state.catalog.table
        let members = ReachabilityColumn.rowsToProbe(state).map {
            Member(id: table.id($0), target: ProbeTarget.of(table, row: $0))
        }
        lock.lock()
        guard members != window else {
            lock.unlock()
            return
        }
        window = members
        for forgotten in scheduler.track(members.compactMap(\.target), now: Date()) { results[forgotten] = nil }
        lock.unlock()
        pump()
    }

    /// Starts the probes that are due (the run loop calls this once a second, and each probe's end does).
    func pump() {
        lock.lock()
        let due = scheduler.start(now: Date())
        lock.unlock()
        for target in due {
            queue.async { [self] in
                let outcome = ReachabilityProbe.probe(target, timeout: Reachability.timeoutSeconds)
                lock.lock()
                scheduler.finished(target, now: Date())
                results[target] = outcome
                lock.unlock()
                post()
                pump()
            }
        }
        post()
    }

    /// Sends the window's results to the run loop (a host being probed for the first time shows "probing"; a
    /// refresh keeps showing the last result until the new one is in).
    private func post() {
        lock.lock()
        var map: [UUID: HostReachability] = [:]
        for member in window {
            guard let target = member.target else {
                map[member.id] = HostReachability(.down(.missingJump))
                continue
            }
            let state = results[target] ?? (scheduler.running.contains(target) ? .probing : .unknown)
            map[member.id] = HostReachability(state, via: target.via)
        }
        let changed = map != posted
        posted = map
        lock.unlock()
        if changed { mailbox.post(.reachability(map)) }
    }
}
