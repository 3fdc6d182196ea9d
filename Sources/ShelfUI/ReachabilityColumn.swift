// ReachabilityColumn: the host list's optional "Reach" column (`p`) — whether it is shown, which rows the app probes
// (those on screen plus a margin), and what the probes found, by host id (the app fills it through the mailbox).
import FoundationEssentials
import ShelfCore

/// One host's probe result as the column shows it: the state, and the jump host the probe went to.
public struct HostReachability: Sendable, Equatable {
    public var state: Reachability
    public var via: String?
    public init(_ state: Reachability, via: String? = nil) {
        self.state = state
        self.via = via
    }
}

public struct ReachabilityColumn: Sendable, Equatable {
    /// What the column is at start: `auto` shows it unless the store has more than `largeStore` hosts.
    public enum Start: String, Sendable { case on, off, auto }

    /// Above this many hosts the column starts hidden (a large store is usually an inventory, many of whose
    /// hosts are not meant to be reached from here); `p` shows it all the same.
    public static let largeStore = 1000
    /// Rows probed above and below those on screen, so a short scroll finds results waiting.
    public static let margin = 10
    /// Seconds between two probes of one address while it is on screen (or within the margin).
    public static let refreshSeconds: TimeInterval = 30
    /// Below this list width the column is not drawn (the name and address need the room).
    public static let minimumListWidth = 50

    public var shown = false
    public var start: Start = .off
    /// True once the first catalog decided `shown` from `start`.
    var decided = false
    /// The hosts in the probed window, by id (others are not kept).
    public var results: [UUID: HostReachability] = [:]

    public init(start: Start = .off) {
        self.start = start
    }

    /// The first catalog decides whether the column starts shown; later loads keep what `p` chose.
    mutating func decide(_ catalog: Catalog) {
        guard !decided else { return }
        decided = true
        shown = start == .on || (start == .auto && catalog.totalCount <= ReachabilityColumn.largeStore)
    }

    /// Catalog rows to probe right now: none when the column is hidden, else the rows on screen, then up to
    /// `margin` below and above them (`ProbeScheduler.window`).
    public static func rowsToProbe(_ state: UIState) -> [Int] {
        guard state.reachability.shown, state.loaded, !state.isTooSmall else { return [] }
        let list = state.visible
        let rows = Layout(rows: state.rows, columns: state.columns).hostRows
        return ProbeScheduler<Int>.window(count: list.count, first: state.hostScroll, rows: rows, margin: margin)
            .map { Int(list[$0]) }
    }

    /// `p`: shows or hides the column, saying what it does.
    static func toggle(_ state: inout UIState) {
        state.reachability.decided = true
        state.reachability.shown.toggle()
        state.notice = Notice(
            state.reachability.shown
                ? "reachability on: a TCP connect to each host on screen every \(Int(refreshSeconds)) s (p hides it)"
                : "reachability off: no more probes")
        if !state.reachability.shown { state.reachability.results = [:] }
    }
}
