// Keymap: every key binding as data — keys, the command, what it does, and when (and why) it is disabled.
// The `?` help screen and the README's keymap section are both generated from this table.
public enum Command: String, Sendable, CaseIterable {
    case moveDown, moveUp, pageDown, pageUp, top, bottom
    case nextPane, previousPane, left, right, toggleGroup, activate
    case search, cancel, sort, reload, syncNow, vaultLock
    case addHost, addGroup, addForward, addIdentity, identities, edit, delete, toggleForward, copyID
    case markAll, runCommand, importConfig, files, snippets, tmuxWindow, recordings
    // the snippet picker
    case snippetPick, snippetClose, snippetDown, snippetUp, snippetErase, snippetClear
    // the file pane
    case filesDown, filesUp, filesPageDown, filesPageUp, filesTop, filesBottom, filesSwitch, filesOpen, filesParent
    case filesFilter, filesHidden, filesReload, filesClose, filesMark, filesCopy, filesCancelCopy
    case filesMakeFolder, filesRename, filesDelete, filesMode
    // the import dialog
    case importYes, importClose, importDown, importUp, importPageDown, importPageUp
    // the run pane
    case fleetSend, fleetStop, fleetClose, fleetRepeat, fleetErase, fleetClear, fleetDown, fleetUp, fleetPageDown
    case fleetPageUp
    case toggleReachability
    case help, quit
    // searching
    case searchAccept, searchCancel, searchErase, searchDown, searchUp, searchScope
    // forms
    case formNext, formPrevious, formCycle, formCycleBack, formSave, formCancel, formErase, formClear
    case formPickDown, formPickUp, formPickNew
    // dialogs
    case confirmYes, confirmNo
    // the identity list
    case identityDown, identityUp, identityAdd, identityEdit, identityDelete, identityCopyID, identityClose
    // a host's recordings
    case recordingDown, recordingUp, recordingPlay, recordingSearch, recordingRemove, recordingRemoveYes
    case recordingClose
    case recordingFind, recordingStopTyping, recordingErase, recordingClear
    // the merge-conflict list
    case conflicts, conflictDown, conflictUp, conflictTakeOther, conflictKeep, conflictClose
    // connect dialogs
    case promptTrust, promptRefuse, promptCancel, promptSend, promptErase, promptClear, promptRemember
    case helpDown, helpUp, helpClose
    // the full-screen error (store or vault cannot be opened)
    case failureRetry, failureContinue, failureQuit
}

public enum KeyContext: String, Sendable, CaseIterable {
    case browse = "Browsing"
    case search = "Searching"
    case form = "Forms"
    case dialog = "Confirmations"
    case identities = "Identity list"
    case conflicts = "Conflict list"
    case recordings = "Recordings"
    case recordingSearch = "Recordings search"
    case prompt = "Connect dialogs"
    case fleet = "Run pane"
    case files = "File pane"
    case importDialog = "Import dialog"
    case snippets = "Snippet picker"
    case help = "Help"
    case failure = "Error screen"
}

public struct KeyBinding: Sendable {
    public var keys: [Key]
    public var command: Command
    public var context: KeyContext
    public var description: String
    /// Short label for the status line's key hints; nil keeps the binding out of the hints.
    public var hint: String?
    /// Why the binding does nothing right now, or nil when it is enabled.
    public var disabledReason: @Sendable (UIState) -> String?
    /// The hint label as the state decides it (nil: no hint now), for a key that matters only at times; when set,
    /// it replaces `hint`.
    public var hintNow: (@Sendable (UIState) -> String?)?

    public init(
        _ keys: [Key], _ command: Command, _ context: KeyContext, _ description: String, hint: String? = nil,
        hintNow: (@Sendable (UIState) -> String?)? = nil,
        disabled: @escaping @Sendable (UIState) -> String? = { _ in nil }
    ) {
        self.keys = keys
        self.command = command
        self.context = context
        self.description = description
        self.hint = hint
        self.hintNow = hintNow
        disabledReason = disabled
    }

    /// The status line's label for this binding now.
    public func hint(_ state: UIState) -> String? { hintNow.map { $0(state) } ?? hint }

    public var keyLabel: String { keys.map(\.label).joined(separator: " ") }
    public var asciiKeyLabel: String { keys.map(\.asciiLabel).joined(separator: " ") }
}

public enum Keymap {
    static let needsHost: @Sendable (UIState) -> String? = { state in
        if !state.loaded { return "still loading" }
        return state.selectedHost == nil ? "no host selected" : nil
    }

    static let needsSelection: @Sendable (UIState) -> String? = { state in
        if !state.loaded { return "still loading" }
        switch state.focus {
        case .groups: return state.selectedGroupID == nil ? "\"All hosts\" is not a group" : nil
        case .hosts: return state.selectedHost == nil ? "no host selected" : nil
        case .forwards: return state.selectedRule == nil ? "no forward rule selected" : nil
        }
    }

    static let forwardToggle: @Sendable (UIState) -> String? = { state in
        guard state.focus == .forwards else { return "only in the forwards pane (Tab or l goes there)" }
        guard let rule = state.selectedRule else { return "no forward rule selected" }
        switch state.forwardStates[rule.id]?.runner {
        case .supervisor: return "run by 'sshelf forward up'"
        case .command(let pid): return "run by 'sshelf forward start' (pid \(pid)), stopped where it runs"
        case .tui, nil: break
        }
        if !rule.enabled, state.forwardStates[rule.id] == nil { return "the rule is disabled (e edits it)" }
        return nil
    }

    static let needsIdentity: @Sendable (UIState) -> String? = { state in
        state.selectedIdentity == nil ? "no identity selected" : nil
    }

    static let needsLoaded: @Sendable (UIState) -> String? = { $0.loaded ? nil : "still loading" }

    static let cancelOrClear: @Sendable (UIState) -> String? = { state in
        state.connecting == nil && !state.search.isActive ? "no connect under way and no search active" : nil
    }

    static let needsSync: @Sendable (UIState) -> String? = { state in
        state.status.sync == .off ? "sync is off on this device ('sshelf sync enable' turns it on)" : nil
    }

    static let vaultToggle: @Sendable (UIState) -> String? = { state in
        if let attempt = state.connecting { return "wait for the connect to \(attempt.name) (Esc cancels it)" }
        switch state.status.vault {
        case .notSetUp: return nil
        case .noPassphrase:
            return "the vault has no passphrase, so there is nothing to lock ('sshelf vault passwd' sets one)"
        case .broken(let message): return "the vault cannot be read (\(message))"
        case .locked, .partlyUnlocked, .unlocked, .unlockedFor: return nil
        }
    }

    static let needsHostIdentity: @Sendable (UIState) -> String? = { state in
        if let reason = needsHost(state) { return reason }
        return state.selectedHost?.identityID == nil ? "the host has no identity (e sets one)" : nil
    }

    public static let table: [KeyBinding] = [
        KeyBinding([.char("j"), .down], .moveDown, .browse, "move down"),
        KeyBinding([.char("k"), .up], .moveUp, .browse, "move up"),
        KeyBinding([.ctrl("d"), .pageDown], .pageDown, .browse, "page down"),
        KeyBinding([.ctrl("u"), .pageUp], .pageUp, .browse, "page up"),
        KeyBinding([.char("g"), .home], .top, .browse, "go to the first row"),
        KeyBinding([.char("G"), .end], .bottom, .browse, "go to the last row"),
        KeyBinding([.tab], .nextPane, .browse, "next pane (groups, hosts, forwards)"),
        KeyBinding([.backTab], .previousPane, .browse, "previous pane"),
        KeyBinding([.char("h"), .left], .left, .browse, "close the group, or go to the pane on the left"),
        KeyBinding([.char("l"), .right], .right, .browse, "open the group, or go to the pane on the right"),
        KeyBinding(
            [.char(" ")], .toggleGroup, .browse,
            "open or close the selected group; in the host list, mark or unmark the host for a run (!)",
            disabled: { state in
                state.focus == .groups
                    ? nil
                    : state.focus == .hosts
                        ? Keymap.needsHost(state)
                        : "only in the group tree or the host list"
            }),
        KeyBinding(
            [.char("*")], .markAll, .browse,
            "mark every host listed (all results of the search); when all are marked, unmark them",
            disabled: { state in
                if let reason = Keymap.needsLoaded(state) { return reason }
                return state.visible.isEmpty ? "no host listed" : nil
            }),
        KeyBinding(
            [.char("!")], .runCommand, .browse,
            "run a command on the marked hosts (the selected host when none is marked), in the run pane",
            disabled: { state in
                if let pane = state.fleet, pane.isActive { return nil }
                return state.marks.isEmpty ? Keymap.needsHost(state) : nil
            }),
        KeyBinding(
            [.char("F")], .files, .browse,
            "open the file pane on the selected host: this machine's folders beside the host's (logs in as Enter does)",
            disabled: needsHost),
        KeyBinding(
            [.char("x")], .snippets, .browse,
            "run a saved snippet on the marked hosts (the selected host when none is marked): pick it, fill in its"
                + " parameters, then it runs as ! does",
            disabled: { state in
                if let pane = state.fleet, pane.isActive { return "a run is under way" }
                return state.marks.isEmpty ? Keymap.needsHost(state) : nil
            }),
        KeyBinding(
            [.char("R")], .recordings, .browse,
            "list the selected host's recorded sessions: play one, search what they showed, remove one",
            disabled: needsHost),
        KeyBinding(
            [.char("w")], .tmuxWindow, .browse,
            "inside tmux: open the selected host in a new tmux window (the marked hosts: one tiled window, a pane"
                + " each)",
            disabled: { state in
                guard state.insideTmux else { return "not inside tmux" }
                return state.marks.isEmpty ? Keymap.needsHost(state) : nil
            }),
        KeyBinding(
            [.enter], .activate, .browse, "connect to the selected host (in the group tree: open the group)",
            hint: "connect",
            disabled: { state in
                state.focus == .groups ? nil : Keymap.needsHost(state)
            }),
        KeyBinding(
            [.char("/")], .search, .browse, "search hosts (fuzzy: name, address, user, tags, group)",
            hint: "search", disabled: needsLoaded),
        KeyBinding(
            [.escape], .cancel, .browse, "cancel the connect under way (at any stage), else clear the search",
            disabled: cancelOrClear),
        KeyBinding([.char("s")], .sort, .browse, "sort hosts by name or by last connected"),
        KeyBinding(
            [.char("o")], .importConfig, .browse,
            "import ~/.ssh/config as the CLI does, showing first what it adds (again once it changed)",
            hintNow: ImportDialogReducer.hint, disabled: ImportDialogReducer.disabled),
        KeyBinding([.char("a")], .addHost, .browse, "add a host", hint: "add", disabled: needsLoaded),
        KeyBinding([.char("N")], .addGroup, .browse, "add a group (inside the selected one)", disabled: needsLoaded),
        KeyBinding([.char("f")], .addForward, .browse, "add a forward rule to the selected host", disabled: needsHost),
        KeyBinding([.char("i")], .addIdentity, .browse, "add an identity (key)", disabled: needsLoaded),
        KeyBinding(
            [.char("I")], .identities, .browse, "list identities (keys): edit or delete them", disabled: needsLoaded),
        KeyBinding(
            [.char("e")], .edit, .browse, "edit the selected host, group or forward rule", hint: "edit",
            disabled: needsSelection),
        KeyBinding(
            [.char("d"), .delete], .delete, .browse, "delete the selected host, group or forward rule",
            hint: "delete", disabled: needsSelection),
        KeyBinding(
            [.char("t")], .toggleForward, .browse,
            "start or stop the selected forward rule", hint: "start/stop",
            disabled: forwardToggle),
        KeyBinding(
            [.char("c")], .copyID, .browse, "install the host's identity key in its ~/.ssh/authorized_keys (copy-id)",
            disabled: needsHostIdentity),
        KeyBinding(
            [.char("p")], .toggleReachability, .browse,
            "show or hide whether each host on screen answers (a TCP connect every 30 s, nothing sent)"),
        KeyBinding(
            [.char("r")], .reload, .browse,
            "reload from the store (changes by other programs show by themselves)"),
        KeyBinding([.char("S")], .syncNow, .browse, "sync now", disabled: needsSync),
        KeyBinding(
            [.char("C")], .conflicts, .browse,
            "list merge conflicts from sync: take the other value or keep the kept one"),
        KeyBinding(
            [.char("V")], .vaultLock, .browse,
            "unlock the vault (asks its passphrase), lock it when it is unlocked, or create one when there is none",
            disabled: vaultToggle),
        KeyBinding([.char("?"), .function(1)], .help, .browse, "show this help", hint: "help"),
        KeyBinding(
            [.char("q"), .ctrl("c")], .quit, .browse, "quit (Ctrl-c cancels a connect under way instead)",
            hint: "quit"),

        KeyBinding([.enter], .searchAccept, .search, "keep the filter and go to the list", hint: "keep"),
        KeyBinding([.escape], .searchCancel, .search, "clear the search", hint: "clear"),
        KeyBinding([.backspace], .searchErase, .search, "delete the last character"),
        KeyBinding([.down, .ctrl("n")], .searchDown, .search, "move down in the results"),
        KeyBinding([.up, .ctrl("p")], .searchUp, .search, "move up in the results"),
        KeyBinding(
            [.tab], .searchScope, .search, "search every host, or only the selected group",
            disabled: { $0.selectedGroupID == nil ? "\"All hosts\" is selected" : nil }),

        KeyBinding([.tab, .down], .formNext, .form, "next field", hint: "next"),
        KeyBinding([.backTab, .up], .formPrevious, .form, "previous field"),
        KeyBinding([.char(" "), .right], .formCycle, .form, "next choice / toggle (on a choice field)"),
        KeyBinding([.left], .formCycleBack, .form, "previous choice (on a choice field)"),
        KeyBinding([.backspace], .formErase, .form, "delete the last character"),
        KeyBinding([.ctrl("u")], .formClear, .form, "clear the field (an empty Password field: remove the stored one)"),
        KeyBinding(
            [.enter], .formSave, .form, "save (in Options: a new line; on a typed identity: pick the match)",
            hint: "save"),
        KeyBinding([.escape, .ctrl("c")], .formCancel, .form, "cancel without saving", hint: "cancel"),
        KeyBinding([.ctrl("n")], .formPickDown, .form, "next match in a pick-list (the host's identity)"),
        KeyBinding([.ctrl("p")], .formPickUp, .form, "previous match in a pick-list"),
        KeyBinding([.ctrl("a")], .formPickNew, .form, "add a new identity from the host form's Identity field"),

        KeyBinding([.char("y")], .confirmYes, .dialog, "yes: go ahead", hint: "yes"),
        KeyBinding([.char("n"), .escape, .ctrl("c")], .confirmNo, .dialog, "no: keep everything", hint: "no"),

        KeyBinding([.char("j"), .down], .identityDown, .identities, "move down"),
        KeyBinding([.char("k"), .up], .identityUp, .identities, "move up"),
        KeyBinding([.char("a"), .char("i")], .identityAdd, .identities, "add an identity", hint: "add"),
        KeyBinding(
            [.char("e"), .enter], .identityEdit, .identities, "edit the selected identity", hint: "edit",
            disabled: needsIdentity),
        KeyBinding(
            [.char("d"), .delete], .identityDelete, .identities,
            "delete the selected identity (hosts using it lose it)", hint: "delete", disabled: needsIdentity),
        KeyBinding([.escape, .char("q"), .char("I")], .identityClose, .identities, "back to the hosts", hint: "close"),
        KeyBinding(
            [.char("c")], .identityCopyID, .identities,
            "install the selected identity's key in a host's ~/.ssh/authorized_keys (asks which host; copy-id)",
            hint: "copy-id", disabled: needsIdentity),

        KeyBinding([.char("j"), .down], .conflictDown, .conflicts, "move down"),
        KeyBinding([.char("k"), .up], .conflictUp, .conflicts, "move up"),
        KeyBinding(
            [.char("o")], .conflictTakeOther, .conflicts, "take the other value (an edit that syncs)",
            hint: "take other",
            disabled: ConflictList.needsOpenConflict),
        KeyBinding(
            [.char("p")], .conflictKeep, .conflicts, "keep the kept value (stamped again, so it syncs as the choice)",
            hint: "keep", disabled: ConflictList.needsOpenConflict),
        KeyBinding([.escape, .char("q"), .char("C")], .conflictClose, .conflicts, "back to the hosts", hint: "close"),

        KeyBinding([.char("y")], .promptTrust, .prompt, "unknown host key: trust and pin it", hint: "trust"),
        KeyBinding([.char("n")], .promptRefuse, .prompt, "unknown host key: refuse (nothing is sent)", hint: "refuse"),
        KeyBinding(
            [.enter], .promptSend, .prompt,
            "send what was typed (a password, a passphrase, or the host's name to replace a changed key)",
            hint: "answer"),
        KeyBinding(
            [.escape, .ctrl("c")], .promptCancel, .prompt,
            "cancel (an unknown or changed host key is refused; a pinned key is kept)", hint: "cancel"),
        KeyBinding([.backspace], .promptErase, .prompt, "delete the last character"),
        KeyBinding([.ctrl("u")], .promptClear, .prompt, "clear the entry"),
        KeyBinding([.tab], .promptRemember, .prompt, "toggle \"remember in the vault\" (when offered)"),

        KeyBinding(
            [.enter], .fleetSend, .fleet,
            "run the command typed (or give the typed confirmation); on a host: its whole status and output"
                + " (Enter or Esc again: back)",
            hint: "go"),
        KeyBinding(
            [.escape, .ctrl("c")], .fleetStop, .fleet,
            "cancel the question; during the run: no more hosts start, a second press stops the running ones; "
                + "after it: close", hint: "stop/close"),
        KeyBinding(
            [.char("q")], .fleetClose, .fleet, "close the pane once the run has ended (while typing: text)",
            disabled: { ($0.fleet?.isActive ?? false) ? "the run goes on (Esc stops it)" : nil }),
        KeyBinding(
            [.char("f")], .fleetRepeat, .fleet,
            "run again on the hosts that did not succeed (while typing: text)",
            hint: "repeat failed",
            disabled: { state in
                guard let pane = state.fleet, pane.phase == .ended else { return "the run has not ended" }
                return pane.unsuccessful.isEmpty ? "every host succeeded" : nil
            }),
        KeyBinding([.backspace], .fleetErase, .fleet, "delete the last character"),
        KeyBinding([.ctrl("u")], .fleetClear, .fleet, "clear the entry"),
        KeyBinding(
            [.char("j"), .down], .fleetDown, .fleet, "next host, then scroll down (while typing: j is text)"),
        KeyBinding([.char("k"), .up], .fleetUp, .fleet, "previous host, or scroll up (while typing: k is text)"),
        KeyBinding([.pageDown], .fleetPageDown, .fleet, "page down"),
        KeyBinding([.pageUp], .fleetPageUp, .fleet, "page up"),

        KeyBinding([.char("j"), .down], .filesDown, .files, "move down"),
        KeyBinding([.char("k"), .up], .filesUp, .files, "move up"),
        KeyBinding([.ctrl("d"), .pageDown], .filesPageDown, .files, "page down"),
        KeyBinding([.ctrl("u"), .pageUp], .filesPageUp, .files, "page up"),
        KeyBinding([.char("g"), .home], .filesTop, .files, "go to the first entry"),
        KeyBinding([.char("G"), .end], .filesBottom, .files, "go to the last entry"),
        KeyBinding([.tab], .filesSwitch, .files, "switch sides (this machine, the host)", hint: "switch"),
        KeyBinding(
            [.enter, .char("l"), .right], .filesOpen, .files,
            "open the folder (or the link to a folder); a host's file: edit it in $EDITOR", hint: "open",
            disabled: FilesReducer.needsHost),
        KeyBinding(
            [.char("h"), .left, .backspace], .filesParent, .files, "go up to the parent folder", hint: "up",
            disabled: FilesReducer.needsHost),
        KeyBinding(
            [.char("/")], .filesFilter, .files,
            "filter the folder: the names holding every word typed (Enter keeps it, Esc clears it)", hint: "filter"),
        KeyBinding([.char(".")], .filesHidden, .files, "show or hide hidden names (starting with a dot)"),
        KeyBinding([.char("r")], .filesReload, .files, "read the folder again", disabled: FilesReducer.needsHost),
        KeyBinding([.char(" ")], .filesMark, .files, "mark or unmark the entry for a copy, and move down"),
        KeyBinding(
            [.char("c")], .filesCopy, .files,
            "copy the marked entries (else the one under the cursor) into the other side's folder, folders whole",
            hint: "copy", disabled: FilesCopyReducer.copyDisabled),
        KeyBinding(
            [.char("x")], .filesCancelCopy, .files, "cancel the running copy (else the last queued one)",
            disabled: { ($0.files?.transfers.contains { $0.isOpen } ?? false) ? nil : "no copy under way" }),
        KeyBinding(
            [.char("n")], .filesMakeFolder, .files, "make a folder here (asks its name)",
            disabled: FilesChangeReducer.needsFolder),
        KeyBinding(
            [.char("R")], .filesRename, .files, "rename the entry (asks the new name; an existing name is refused)",
            disabled: FilesChangeReducer.needsEntry),
        KeyBinding(
            [.char("d"), .delete], .filesDelete, .files,
            "delete the entry: y for a file or link; a folder goes with all in it once its name is typed",
            disabled: FilesChangeReducer.needsEntry),
        KeyBinding(
            [.char("M")], .filesMode, .files, "change the entry's mode (octal, 000 to 777)",
            disabled: FilesChangeReducer.needsEntry),
        KeyBinding(
            [.escape, .char("q")], .filesClose, .files,
            "clear the filter; without one, close the pane (the host's connection ends)", hint: "close"),

        KeyBinding(
            [.enter], .snippetPick, .snippets,
            "pick the snippet under the cursor; then take the parameter typed (empty: its default)", hint: "pick"),
        KeyBinding([.escape, .ctrl("c")], .snippetClose, .snippets, "close: nothing runs", hint: "cancel"),
        KeyBinding([.down, .ctrl("n")], .snippetDown, .snippets, "next snippet"),
        KeyBinding([.up, .ctrl("p")], .snippetUp, .snippets, "previous snippet"),
        KeyBinding([.backspace], .snippetErase, .snippets, "delete the last character (of the filter or the value)"),
        KeyBinding([.ctrl("u")], .snippetClear, .snippets, "clear the filter or the value"),

        KeyBinding(
            [.char("y")], .importYes, .importDialog, "import what is shown", hint: "import",
            disabled: { $0.importDialog?.phase == .ready ? nil : "nothing to import yet" }),
        KeyBinding(
            [.escape, .char("n"), .char("q"), .ctrl("c")], .importClose, .importDialog,
            "close: before y nothing is imported; after the import, back to the hosts",
            hintNow: { [.done, .failed].contains($0.importDialog?.phase) ? "close" : "cancel" },
            disabled: { $0.importDialog?.phase == .importing ? "the import is being written (it ends by itself)" : nil }
        ),
        KeyBinding([.char("j"), .down], .importDown, .importDialog, "scroll down"),
        KeyBinding([.char("k"), .up], .importUp, .importDialog, "scroll up"),
        KeyBinding([.pageDown, .char(" ")], .importPageDown, .importDialog, "page down"),
        KeyBinding([.pageUp], .importPageUp, .importDialog, "page up"),

        KeyBinding([.char("j"), .down], .recordingDown, .recordings, "move down"),
        KeyBinding([.char("k"), .up], .recordingUp, .recordings, "move up"),
        KeyBinding(
            [.enter], .recordingPlay, .recordings,
            "play the recording here (sshelf play: space pauses, + and - change the speed, the arrows seek, q stops);"
                + " on a search hit, play from a second before it",
            hint: "play", disabled: RecordingListReducer.needsRecording),
        KeyBinding(
            [.char("/")], .recordingSearch, .recordings,
            "find text in what this host's recordings showed (type it, then Enter; sessions search's rules)",
            hint: "search", disabled: RecordingListReducer.needsRecordings),
        KeyBinding(
            [.char("d"), .delete], .recordingRemove, .recordings,
            "remove the recording (asks first; the release log says it was removed)", hint: "remove",
            disabled: RecordingListReducer.needsListedRecording),
        KeyBinding([.char("y")], .recordingRemoveYes, .recordings, "when asked: remove the recording"),
        KeyBinding(
            [.escape, .char("q"), .char("R")], .recordingClose, .recordings,
            "back from the search's hits to the recordings, or to the hosts", hint: "close"),
        KeyBinding(
            [.enter], .recordingFind, .recordingSearch, "find the text typed in this host's recordings",
            hint: "search"),
        KeyBinding(
            [.escape, .ctrl("c")], .recordingStopTyping, .recordingSearch, "stop typing (the text is kept)",
            hint: "stop"),
        KeyBinding([.backspace], .recordingErase, .recordingSearch, "delete the last character"),
        KeyBinding([.ctrl("u")], .recordingClear, .recordingSearch, "clear the text"),

        KeyBinding([.char("j"), .down], .helpDown, .help, "scroll down"),
        KeyBinding([.char("k"), .up], .helpUp, .help, "scroll up"),
        KeyBinding([.escape, .char("q"), .char("?")], .helpClose, .help, "close help", hint: "close"),

        KeyBinding(
            [.char("r")], .failureRetry, .failure, "try to open the store again", hint: "try again",
            disabled: { $0.failure?.subject == .store ? nil : "the vault is checked again by itself" }),
        KeyBinding(
            [.escape], .failureContinue, .failure, "go on without the vault (what needs it says so)",
            hint: "go on without it",
            disabled: { $0.failure?.subject == .vault ? nil : "there is nothing to show without the store" }),
        KeyBinding([.char("q"), .ctrl("c")], .failureQuit, .failure, "quit", hint: "quit"),
    ]

    public static func binding(for key: Key, in context: KeyContext) -> KeyBinding? {
        table.first { $0.context == context && $0.keys.contains(key) }
    }

    public static func bindings(in context: KeyContext) -> [KeyBinding] { table.filter { $0.context == context } }

    /// The README section: one table per context, generated so it cannot drift from the program.
    public static func markdown() -> String {
        var out =
            "## Keys\n\nGenerated from the keymap table (`Sources/ShelfUI/Keymap.swift`); `?` in the program shows "
            + "the same list.\n"
        for context in KeyContext.allCases where context != .help {
            out += "\n### \(context.rawValue)\n\n| Keys | Action |\n| --- | --- |\n"
            if context == .search { out += "| (text) | type to filter |\n" }
            if context == .recordingSearch { out += "| (text) | type what to find |\n" }
            if context == .form { out += "| (text) | type into the field |\n" }
            if context == .prompt {
                out +=
                    "| (text) | type the answer in a password or question dialog, or the host's name in a "
                    + "changed-key dialog (`y` and `n` are text there) |\n"
            }
            for binding in bindings(in: context) {
                out += "| \(binding.keys.map { "`\($0.label)`" }.joined(separator: " ")) | \(binding.description) |\n"
            }
        }
        return out
    }
}
