// UIState: everything the screen shows, as one value. The reducer changes it; widgets only read it.
import FoundationEssentials
import ShelfCore

public enum Pane: Sendable, Equatable { case groups, hosts, forwards }
public enum SortOrder: String, Sendable, Equatable { case name, recent }

/// One row of the group tree: "All hosts" first, then the groups depth-first.
public struct GroupRow: Sendable, Equatable {
    public var groupID: UUID?
    public var name: String
    public var depth: Int
    public var count: Int
    public var hasChildren: Bool
    public var expanded: Bool
}

/// A short message shown in the title bar until the next key (the result of a save, a connect, an error).
public struct Notice: Sendable, Equatable {
    public var text: String
    public var isError: Bool
    public init(_ text: String, isError: Bool = false) {
        self.text = text
        self.isError = isError
    }
}

public enum Mode: Sendable, Equatable {
    case browse
    case form(Form)
    case confirm(Confirmation)
    case help(scroll: Int)
    /// The identity list (`I`): every identity with its key and the hosts using it.
    case identities
    /// The merge-conflict list (`C`).
    case conflicts
    /// Connect-time questions (host key, password, keyboard-interactive) asked before curses is left.
    case prompt(ConnectPrompt)
    /// The run pane (`!`): one command on the marked hosts (`UIState.fleet`).
    case fleet
    /// The import of ~/.ssh/config (`o`): what it would add, then what it did (`UIState.importDialog`).
    case importConfig
    /// The file pane (`F`): this machine's folder and the host's side by side (`UIState.files`).
    case files
    /// The snippet picker (`x`): a snippet and its parameters, run on the marked hosts (`UIState.snippetPicker`).
    case snippets
    /// A host's recordings (`R`): play, search, remove (`UIState.recordings`).
    case recordings

    /// A form, a confirmation or a connect question: Esc and Ctrl-C close it rather than act outside it.
    var isDialog: Bool {
        switch self {
        case .form, .confirm, .prompt, .fleet, .importConfig, .snippets: true
        case .browse, .help, .identities, .conflicts, .files, .recordings: false
        }
    }
}

/// A connect attempt under way: Esc cancels it, and Enter waits for it instead of starting another.
public struct ConnectAttempt: Sendable, Equatable {
    public var hostID: UUID
    public var name: String
    public init(hostID: UUID, name: String) {
        self.hostID = hostID
        self.name = name
    }
}

public struct Confirmation: Sendable, Equatable {
    public var title: String
    public var lines: [String]
    public var effect: Effect
    /// What the dialog's keys are called, and what the title bar says after each answer.
    public var yesLabel = "delete"
    public var noLabel = "keep"
    public var yesNotice = "deleting..."
    public var noNotice = "nothing deleted"
    /// Set when the dialog is the sshelf agent's question: both answers go back to it.
    public var agentQuestion: UUID? = nil
}

public struct UIState: Sendable {
    public var catalog = Catalog()
    public var loaded = false
    public var loadError: String?
    public var status = StatusModel()
    public var symbols: Symbols
    public var now: Date
    public var rows: Int
    public var columns: Int

    public var focus: Pane = .hosts
    /// Groups the user closed (all start open, so a fresh store shows its whole tree).
    public var collapsed: Set<UUID> = []
    public var groupRows: [GroupRow] = []
    public var groupCursor = 0
    public var sort: SortOrder = .name
    /// Catalog rows in the selected group, in sort order: the list when no search is active.
    public var scoped: [Int32] = []
    /// Every catalog row in sort order: what a search runs over unless narrowed to the group (Tab).
    public var allRows: [Int32] = []
    public var search = SearchState()
    public var hostCursor = 0
    public var hostScroll = 0
    public var forwardCursor = 0
    /// Row of the identity list (`catalog.identities`, sorted by name).
    public var identityCursor = 0
    /// The merge-conflict list (`C`), read when it opens and after each settle.
    public var conflicts: [ConflictItem] = []
    public var conflictsLoaded = false
    public var conflictCursor = 0
    public var mode: Mode = .browse
    /// What a connect-time question interrupted (a form being filled in), shown again after the answer.
    public var modeAfterPrompt: Mode?
    /// Where a form or confirmation opened from the identity list returns to (nil: browsing).
    public var modeAfterForm: Mode?
    public var notice: Notice?
    /// The notice on screen and when it first showed (the clock's ticks age it: `NoticeLifetime`).
    var noticeShown: NoticeLifetime.Shown?
    /// The recency order (most recently connected first) the list and the search were ranked by, held after a reload
    /// changed it (a connect) until the user changes the search or the sort: the rows do not move under the cursor.
    /// Nil: the catalog's own.
    var heldRecency: [UUID]?
    /// The connect attempt under way (the login runs in the background until it logs in or fails).
    public var connecting: ConnectAttempt?
    /// A store or vault that cannot be opened: shown on the whole screen with its error and hint.
    public var failure: FailureScreen?
    /// The vault failure the user chose to go on without (not shown again until the vault says something else).
    public var dismissedVaultFailure: String?
    public var quitting = false
    /// The host to select once it appears (after a save, a reload, or while a search is still running).
    public var wantedHostID: UUID?
    /// Live state of the forward rules that run (whoever runs them: a TUI, `forward up`, a `forward start` in a
    /// terminal), by rule id; a rule missing here is not running.
    public var forwardStates: [UUID: ForwardLive] = [:]
    /// The last `t` until its outcome shows (the title bar then says it).
    public var forwardTransition: ForwardTransition?
    /// Hosts marked with Space (or `*`) for a run (`!`), by id.
    public var marks: Set<UUID> = []
    /// The run pane's command, confirmation and run, while it is open.
    public var fleet: FleetPane?
    /// The host list's reachability column (`p`) and what the probes found.
    public var reachability = ReachabilityColumn()
    /// Kept option lines the installed ssh refuses, with its words: the details pane says so, as `show` does.
    public var refusedOptions: [String: String] = [:]
    /// ~/.ssh/config as the app last found it (nil until it has looked): `o` offers to import it.
    public var userConfig: UserConfigState?
    /// The import dialog, while it is open.
    public var importDialog: ImportDialog?
    /// The file pane, while it is open.
    public var files: FilesPane?
    /// The snippet picker, while it is open.
    public var snippetPicker: SnippetPicker?
    /// The recordings list (`R`), while it is open.
    public var recordings: RecordingList?
    /// The TUI runs inside tmux: `w` opens hosts in tmux windows, and Enter does when `sshelf tmux window` is on.
    public var insideTmux = false

    public init(rows: Int = 24, columns: Int = 80, symbols: Symbols = .unicode, now: Date = Date()) {
        self.rows = rows
        self.columns = columns
        self.symbols = symbols
        self.now = now
    }

    /// The rows the host list shows right now (filtered when a search is active).
    public var visible: RankedRows { search.isActive ? search.results : RankedRows(scoped) }

    /// What a search runs over: every host, or the selected group's when the search is narrowed to it.
    public var searchCandidates: [Int32] { search.allHosts ? allRows : scoped }

    /// The catalog row under the cursor.
    public var selectedRow: Int? {
        let list = visible
        guard hostCursor >= 0, hostCursor < list.count else { return nil }
        return Int(list[hostCursor])
    }

    public var selectedHost: ShelfCore.Host? { selectedRow.map { catalog.host(at: $0) } }

    public var selectedGroupID: UUID? {
        guard groupCursor >= 0, groupCursor < groupRows.count else { return nil }
        return groupRows[groupCursor].groupID
    }

    public var selectedRules: [PortForwardRule] {
        guard let host = selectedHost else { return [] }
        return catalog.rulesByHost[host.id] ?? []
    }

    public var selectedRule: PortForwardRule? {
        let rules = selectedRules
        return forwardCursor >= 0 && forwardCursor < rules.count ? rules[forwardCursor] : nil
    }

    public var selectedConflict: ConflictItem? {
        conflictCursor >= 0 && conflictCursor < conflicts.count ? conflicts[conflictCursor] : nil
    }

    public var selectedIdentity: Identity? {
        let list = catalog.identities
        return identityCursor >= 0 && identityCursor < list.count ? list[identityCursor] : nil
    }

    public static let minimumRows = 15
    public static let minimumColumns = 60
    public var isTooSmall: Bool { rows < UIState.minimumRows || columns < UIState.minimumColumns }
}
