// FleetPane: the run pane (`!`) — the command asked for, the typed confirmation a large or protected run needs, then
// each host's state live, the outputs grouped with the hosts that gave them, and the exit statuses. The app runs the
// hosts (sshelf run's scheduler and guard rails) and sends what it sees as `FleetPane.Update`; this is what is shown.
import FoundationEssentials

public struct FleetPane: Sendable, Equatable {
    public enum Phase: Sendable, Equatable {
        /// Typing the command.
        case command
        /// The run needs a confirmation (`reason`): the user types `answer` (the number of hosts).
        case confirm(reason: String, answer: String)
        /// Asked to start: the app is checking the guard rails and opening the release log.
        case starting
        case running
        case ended
    }

    /// One host's line: what it is doing, and how it ended (`exit 0 (0.31s)`, `unreachable: …`).
    public struct HostLine: Sendable, Equatable {
        public enum State: String, Sendable, Equatable {
            case queued, connecting, running, done, failed, skipped, stopped
            case notStarted = "not started"
        }
        public var id: UUID
        public var name: String
        public var state: State
        public var detail: String
        /// What the host printed, once it ended: its stdout's lines, then `--- stderr` and its stderr's (Enter).
        public var output: [String]

        public init(id: UUID, name: String, state: State, detail: String = "", output: [String] = []) {
            self.id = id
            self.name = name
            self.state = state
            self.detail = detail
            self.output = output
        }
    }

    /// One distinct output and the hosts that gave it (as `sshelf run` prints it at the end).
    public struct OutputGroup: Sendable, Equatable {
        public var hosts: [String]
        public var stdout: [String]
        public var stderr: [String]

        public init(hosts: [String], stdout: [String], stderr: [String]) {
            self.hosts = hosts
            self.stdout = stdout
            self.stderr = stderr
        }
    }

    /// What the app saw of the run, sent about five times a second while it runs and once at its end.
    public struct Update: Sendable, Equatable {
        public var hosts: [HostLine]
        public var groups: [OutputGroup]
        public var ended: Bool
        /// The last line once ended: the counts (`2 hosts: 1 succeeded, 1 unreachable`), or why it did not start.
        public var summary: String?

        public init(hosts: [HostLine], groups: [OutputGroup], ended: Bool, summary: String? = nil) {
            self.hosts = hosts
            self.groups = groups
            self.ended = ended
            self.summary = summary
        }
    }

    public var phase: Phase = .command
    public var hostIDs: [UUID]
    public var command = ""
    /// The confirmation typed so far.
    public var answer = ""
    public var mistyped = false
    public var hosts: [HostLine]
    public var groups: [OutputGroup] = []
    /// Esc (or Ctrl-C) presses during the run: 1 starts no more hosts, 2 stops the running ones.
    public var stops = 0
    public var summary: String?
    public var scroll = 0
    /// The host the cursor is on (j/k), and the one whose whole status and output are open (Enter), scrolled.
    public var selected = 0
    public var opened: Int?
    public var openedScroll = 0

    public init(hosts: [(id: UUID, name: String)]) {
        hostIDs = hosts.map(\.id)
        self.hosts = hosts.map { HostLine(id: $0.id, name: $0.name, state: .queued) }
    }

    /// The hosts to run again with `f`: every one that did not end with exit 0.
    public var unsuccessful: [HostLine] { hosts.filter { $0.state != .done } }

    public var isTyping: Bool {
        switch phase {
        case .command, .confirm: true
        case .starting, .running, .ended: false
        }
    }

    /// A run under way (or being started): the pane stays until it has ended.
    public var isActive: Bool { phase == .starting || phase == .running }
}

/// Keys of the run pane, and the app's reports about the run.
enum FleetPaneReducer {
    /// `!`: the marked hosts (in list order), or the selected one when none is marked.
    static func open(_ state: inout UIState) -> [Effect] {
        if let pane = state.fleet, pane.isActive {
            state.mode = .fleet
            return []
        }
        let hosts = targets(state)
        guard !hosts.isEmpty else { return [] }
        state.fleet = FleetPane(hosts: hosts)
        state.mode = .fleet
        return []
    }

    /// The marked hosts (in list order), or the selected one when none is marked: what `!`, `x` and `w` act on.
    static func targets(_ state: UIState) -> [(id: UUID, name: String)] {
        var hosts: [(id: UUID, name: String)] = []
        for row in state.allRows {
            let id = state.catalog.table.id(Int(row))
            if state.marks.contains(id) { hosts.append((id, state.catalog.reference(Int(row)))) }
        }
        if hosts.isEmpty, let row = state.selectedRow {
            hosts = [(state.catalog.table.id(row), state.catalog.reference(row))]
        }
        return hosts
    }

    /// A command to run at once on the targets (a snippet filled in by `x`): the run pane opens with it and sends it
    /// as Enter would — the app still asks the typed confirmation a large or protected run needs.
    static func run(_ state: inout UIState, command: String) -> [Effect] {
        if let pane = state.fleet, pane.isActive {
            state.notice = Notice(
                "a run is under way: wait for it to end (Esc in the run pane stops it)", isError: true)
            state.mode = .browse
            return []
        }
        let hosts = targets(state)
        guard !hosts.isEmpty else {
            state.mode = .browse
            return []
        }
        var pane = FleetPane(hosts: hosts)
        pane.command = command
        state.mode = .fleet
        let effects = send(&state, &pane)
        state.fleet = pane
        return effects
    }

    static func key(_ state: inout UIState, _ key: Key) -> [Effect] {
        guard var pane = state.fleet else {
            state.mode = .browse
            return []
        }
        let effects = handle(&state, &pane, key)
        // A pane closed by the key is gone; otherwise it keeps what the key changed.
        if state.mode == .fleet { state.fleet = pane }
        return effects
    }

    private static func handle(_ state: inout UIState, _ pane: inout FleetPane, _ key: Key) -> [Effect] {
        let command = Keymap.binding(for: key, in: .fleet)?.command
        if pane.isTyping {
            if case .char(let ch) = key {
                if case .command = pane.phase { append(&pane.command, ch) } else { append(&pane.answer, ch) }
                pane.mistyped = false
                return []
            }
            switch command {
            case .fleetErase:
                if case .command = pane.phase { _ = pane.command.popLast() } else { _ = pane.answer.popLast() }
            case .fleetClear:
                if case .command = pane.phase { pane.command = "" } else { pane.answer = "" }
            case .fleetSend:
                return send(&state, &pane)
            case .fleetStop:
                state.notice = Notice("nothing was run")
                return close(&state)
            default:
                break
            }
            return []
        }
        if pane.opened != nil { return openedKey(state, &pane, command) }
        switch command {
        case .fleetSend:
            guard pane.hosts.indices.contains(pane.selected) else { return [] }
            pane.opened = pane.selected
            pane.openedScroll = 0
        case .fleetStop:
            if pane.isActive {
                pane.stops += 1
                state.notice = Notice(
                    pane.stops == 1
                        ? "stopping: no more hosts start; running ones may finish (Esc again stops them)"
                        : "stopping the running hosts")
                return [.stopFleet]
            }
            return close(&state)
        case .fleetClose:
            if pane.isActive {
                state.notice = Notice("the run goes on: Esc stops it", isError: true)
                return []
            }
            return close(&state)
        case .fleetRepeat:
            guard pane.phase == .ended else {
                state.notice = Notice("wait for the run to end (Esc stops it)", isError: true)
                return []
            }
            let again = pane.unsuccessful
            guard !again.isEmpty else {
                state.notice = Notice("every host succeeded: nothing to repeat")
                return []
            }
            let command = pane.command
            pane = FleetPane(hosts: again.map { ($0.id, $0.name) })
            pane.command = command
            return send(&state, &pane)
        case .fleetDown:
            // The cursor goes down the hosts, the view following it; past the last host the outputs scroll.
            if pane.selected + 1 < pane.hosts.count {
                pane.selected += 1
                pane.scroll = max(pane.scroll, pane.selected - max(1, state.rows - 8))
            } else {
                pane.scroll += 1
            }
        case .fleetUp:
            if pane.scroll > pane.selected || pane.selected == 0 {
                pane.scroll = max(0, pane.scroll - 1)
            } else {
                pane.selected -= 1
                pane.scroll = min(pane.scroll, pane.selected)
            }
        case .fleetPageDown: pane.scroll += max(1, state.rows - 6)
        case .fleetPageUp: pane.scroll = max(0, pane.scroll - max(1, state.rows - 6))
        default: break
        }
        return []
    }

    /// Keys while a host's whole status and output are open: scroll them; Enter, Esc or q go back to the hosts (Esc
    /// stops nothing here: the run goes on).
    private static func openedKey(_ state: UIState, _ pane: inout FleetPane, _ command: Command?) -> [Effect] {
        let page = max(1, state.rows - 6)
        switch command {
        case .fleetSend, .fleetStop, .fleetClose: pane.opened = nil
        case .fleetDown: pane.openedScroll += 1
        case .fleetUp: pane.openedScroll = max(0, pane.openedScroll - 1)
        case .fleetPageDown: pane.openedScroll += page
        case .fleetPageUp: pane.openedScroll = max(0, pane.openedScroll - page)
        default: break
        }
        return []
    }

    private static func append(_ text: inout String, _ ch: Character) {
        if text.utf8.count < 4096 { text.append(ch) }
    }

    private static func close(_ state: inout UIState) -> [Effect] {
        state.fleet = nil
        state.mode = .browse
        return []
    }

    /// Enter: the command goes to the app (which asks for a confirmation when the guard rails want one), or the typed
    /// confirmation is checked here against the app's answer.
    private static func send(_ state: inout UIState, _ pane: inout FleetPane) -> [Effect] {
        switch pane.phase {
        case .command, .ended:
            guard !pane.command.trimmingSpaces().isEmpty else {
                state.notice = Notice("type the command to run, or Esc", isError: true)
                return []
            }
            pane.phase = .starting
            return [.runFleet(pane.hostIDs, command: pane.command, confirmed: false)]
        case .confirm(_, let answer):
            guard pane.answer.trimmingSpaces() == answer else {
                pane.mistyped = true
                return []
            }
            pane.phase = .starting
            return [.runFleet(pane.hostIDs, command: pane.command, confirmed: true)]
        case .starting, .running:
            return []
        }
    }

    /// The app's word on the run: a confirmation wanted, or the hosts' states.
    static func confirm(_ state: inout UIState, reason: String, answer: String) {
        guard var pane = state.fleet, pane.phase == .starting else { return }
        pane.phase = .confirm(reason: reason, answer: answer)
        pane.answer = ""
        state.fleet = pane
    }

    static func update(_ state: inout UIState, _ update: FleetPane.Update) {
        guard var pane = state.fleet, pane.isActive else { return }
        pane.hosts = update.hosts
        pane.selected = min(pane.selected, max(0, pane.hosts.count - 1))
        if let opened = pane.opened, !pane.hosts.indices.contains(opened) { pane.opened = nil }
        pane.groups = update.groups
        pane.summary = update.summary
        pane.phase = update.ended ? .ended : .running
        state.fleet = pane
    }
}
