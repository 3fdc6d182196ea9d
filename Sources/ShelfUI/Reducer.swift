// Reducer: the one place state changes. Takes an action, changes the state, returns the effects to run.
import FoundationEssentials
import ShelfCore

public enum Reducer {
    public static func reduce(_ state: inout UIState, _ action: Action) -> [Effect] {
        switch action {
        case .key(let key):
            return handleKey(&state, key)
        case .resize(let rows, let columns):
            state.rows = rows
            state.columns = columns
            state.importDialog?.rewrap(columns: columns)
            clampCursors(&state)
            return []
        case .tick(let now):
            state.now = now
            NoticeLifetime.age(&state, now: now)
            return []
        case .loaded(let catalog):
            let keepIdentity = state.selectedIdentity?.id
            // Read the selection before the swap: the old row indices may not exist in the new catalog.
            let keep = state.wantedHostID ?? state.selectedHost?.id
            holdRecency(&state, across: catalog)
            state.catalog = catalog
            // The identity list keeps its row by id (a renamed identity may move), else stays on a real row.
            state.identityCursor =
                catalog.identities.firstIndex { $0.id == keepIdentity }
                ?? clamp(state.identityCursor, count: catalog.identities.count)
            state.loaded = true
            state.loadError = nil
            // Only a whole catalog says a marked host is gone: a first screenful lacks every host after it.
            if catalog.isComplete { state.marks = state.marks.filter { catalog.row(of: $0) != nil } }
            state.reachability.decide(catalog)
            SnippetPickerReducer.reloaded(&state)
            if state.failure?.subject == .store { state.failure = nil }
            let keepGroup = state.selectedGroupID
            rebuildGroups(&state)
            if let keepGroup, let row = state.groupRows.firstIndex(where: { $0.groupID == keepGroup }) {
                state.groupCursor = row
            }
            rescope(&state, keepHost: keep)
            return []
        case .loadFailed(let message, let hint):
            state.loadError = message
            // Nothing loaded yet: the whole screen says why (a later reload that fails keeps the last good list).
            if state.loaded {
                state.notice = Notice(message, isError: true)
            } else {
                state.failure = FailureScreen(subject: .store, message: message, hint: hint)
            }
            return []
        case .vaultFailed(let message, let hint):
            if state.failure == nil, state.dismissedVaultFailure != message {
                state.failure = FailureScreen(subject: .vault, message: message, hint: hint)
            }
            return []
        case .storeChanged:
            return [.load]
        case .filterStep:
            runSearch(&state)
            return []
        case .operationFinished(let result):
            switch result {
            case .success(let line):
                if case .form(let saved) = state.mode {
                    closeForm(&state)
                    FormReducer.picked(&state, from: saved)
                }
                state.notice = Notice(line)
                return state.mode == .conflicts ? [.load, .loadConflicts] : [.load]
            case .failure(let failure):
                if case .form(var form) = state.mode, form.pending {
                    form.pending = false
                    // A message about one field goes under it, with the cursor there (a name another host has).
                    if let field = failure.field, let index = form.fields.firstIndex(where: { $0.key == field }) {
                        form.errors[field] = failure.message
                        form.focus = index
                    } else {
                        form.errors[""] = failure.message
                    }
                    state.mode = .form(form)
                } else {
                    state.notice = Notice(failure.message, isError: true)
                }
                return [.load]
            }
        case .connectFinished(let notice):
            state.connecting = nil
            state.notice = notice
            return [.load]
        case .notify(let notice):
            state.notice = notice
            return []
        case .vaultStatus(let vault):
            state.status.vault = vault
            return []
        case .status(let model):
            state.status = model
            return []
        case .forwardStates(let states):
            ForwardToggle.settle(&state, states)
            state.forwardStates = states
            return []
        case .prompt(let prompt):
            // A form or dialog the user opened while logging in comes back once the question is answered.
            if case .prompt = state.mode {} else if state.mode != .browse { state.modeAfterPrompt = state.mode }
            state.mode = .prompt(prompt)
            return []
        case .loggedIn(let hostID):
            state.connecting = nil
            return [.launchSession(hostID)]
        case .agentQuestion(let question):
            return AgentQuestionReducer.ask(&state, question)
        case .agentQuestionEnded(let id):
            return AgentQuestionReducer.ended(&state, id)
        case .fleetConfirm(let reason, let answer):
            FleetPaneReducer.confirm(&state, reason: reason, answer: answer)
            return []
        case .fleetProgress(let update):
            FleetPaneReducer.update(&state, update)
            return []
        case .reachability(let results):
            if state.reachability.shown { state.reachability.results = results }
            return []
        case .optionsRefused(let refused):
            state.refusedOptions.merge(refused) { _, new in new }
            return []
        case .askAutostartMove(let move):
            return AutostartMoveReducer.ask(&state, move)
        case .userConfig(let config):
            state.userConfig = config
            return []
        case .importPreviewed(let result):
            ImportDialogReducer.previewed(&state, result)
            return []
        case .imported(let result):
            return ImportDialogReducer.imported(&state, result)
        case .showFiles(let hostID, let name, let remotePath, let localPath):
            return FilesReducer.show(&state, hostID: hostID, name: name, remotePath: remotePath, localPath: localPath)
        case .filesConnected(let hostID, let failure):
            FilesReducer.connected(&state, hostID: hostID, failure: failure)
            return []
        case .filesListed(let listing):
            FilesReducer.listed(&state, listing)
            return []
        case .filesChanged(let side, let result):
            return FilesChangeReducer.changed(&state, side: side, result: result)
        case .filesTransfer(let id, let transferState, let bytes, let rate, let detail):
            return FilesCopyReducer.progress(
                &state, id: id, state: transferState, bytes: bytes, rate: rate, detail: detail)
        case .filesEditReady(let id):
            return [.runEditor(id)]
        case .filesEditConflict(let edit, let problem):
            FilesEditReducer.conflict(&state, edit, problem: problem)
            return []
        case .conflicts(let items):
            let keep = state.selectedConflict?.id
            state.conflicts = items
            state.conflictsLoaded = true
            state.conflictCursor = items.firstIndex { $0.id == keep } ?? clamp(state.conflictCursor, count: items.count)
            return []
        }
    }

    // MARK: keys

    static func handleKey(_ state: inout UIState, _ key: Key) -> [Effect] {
        // Ctrl-C under a login cancels it as Esc does, wherever it is pressed (in a dialog it cancels the dialog):
        // the TUI never quits, and never drops its tunnels' owner, in the middle of a connect.
        if key == .ctrl("c"), let attempt = state.connecting, !state.mode.isDialog {
            state.notice = Notice("cancelling the connect to \(attempt.name)...")
            return [.cancelConnect]
        }
        if state.isTooSmall {
            return key == .char("q") || key == .ctrl("c") ? quit(&state) : []
        }
        if let failure = state.failure { return FailureReducer.key(&state, key, failure) }
        switch state.mode {
        case .help(let scroll):
            return helpKey(&state, key, scroll: scroll)
        case .confirm(let confirmation):
            return confirmKey(&state, key, confirmation)
        case .form(let form):
            return FormReducer.key(&state, key, form)
        case .prompt(let prompt):
            return PromptReducer.key(&state, key, prompt)
        case .identities:
            return IdentityList.key(&state, key)
        case .fleet:
            return FleetPaneReducer.key(&state, key)
        case .importConfig:
            return ImportDialogReducer.key(&state, key)
        case .files:
            return FilesReducer.key(&state, key)
        case .snippets:
            return SnippetPickerReducer.key(&state, key)
        case .conflicts:
            return ConflictList.key(&state, key)
        case .browse:
            state.notice = nil
            if state.search.typing { return searchKey(&state, key) }
            // Keys act on complete results, never on rows a pending search is about to replace.
            runSearch(&state)
            guard let binding = Keymap.binding(for: key, in: .browse) else { return [] }
            if let reason = binding.disabledReason(state) {
                state.notice = Notice("\(binding.description): \(reason)", isError: true)
                return []
            }
            return run(&state, binding.command)
        }
    }

    static func quit(_ state: inout UIState) -> [Effect] {
        state.quitting = true
        return [.quit]
    }

    static func run(_ state: inout UIState, _ command: Command) -> [Effect] {
        let page = Layout(rows: state.rows, columns: state.columns).hostRows
        switch command {
        case .moveDown: move(&state, by: 1)
        case .moveUp: move(&state, by: -1)
        case .pageDown: move(&state, by: page)
        case .pageUp: move(&state, by: -page)
        case .top: move(&state, by: -Int.max / 2)
        case .bottom: move(&state, by: Int.max / 2)
        case .nextPane: cyclePane(&state, forward: true)
        case .previousPane: cyclePane(&state, forward: false)
        case .left:
            if state.focus == .groups {
                setGroupOpen(&state, false)
            } else {
                state.focus = state.focus == .forwards ? .hosts : .groups
            }
        case .right:
            if state.focus == .groups {
                if let row = state.groupRows[safe: state.groupCursor], row.hasChildren, !row.expanded {
                    setGroupOpen(&state, true)
                } else {
                    state.focus = .hosts
                }
            } else if state.focus == .hosts, !state.selectedRules.isEmpty {
                state.focus = .forwards
            }
        case .toggleGroup:
            if state.focus == .hosts { return Marks.toggle(&state) }
            if let row = state.groupRows[safe: state.groupCursor] { setGroupOpen(&state, !row.expanded) }
        case .markAll:
            Marks.all(&state)
        case .runCommand:
            return FleetPaneReducer.open(&state)
        case .importConfig:
            return ImportDialogReducer.open(&state)
        case .files:
            return FilesReducer.open(&state)
        case .snippets:
            return SnippetPickerReducer.open(&state)
        case .tmuxWindow:
            let hosts = FleetPaneReducer.targets(state)
            guard !hosts.isEmpty else { return [] }
            state.notice = Notice(
                hosts.count == 1
                    ? "opening \(hosts[0].name) in a tmux window..." : "opening \(hosts.count) hosts, tiled...")
            return [.openInTmux(hosts.map(\.id))]
        case .activate:
            if state.focus == .groups {
                if let row = state.groupRows[safe: state.groupCursor], row.hasChildren {
                    setGroupOpen(&state, !row.expanded)
                } else {
                    state.focus = .hosts
                }
                return []
            }
            if state.insideTmux, state.catalog.tmuxWindow, let host = state.selectedHost {
                state.notice = Notice("opening \(host.name) in a tmux window...")
                return [.openInTmux([host.id])]
            }
            guard let host = state.selectedHost, beginAttempt(&state, host) else { return [] }
            state.notice = Notice("connecting to \(host.name)... (Esc cancels)")
            return [.connect(host.id)]
        case .copyID:
            // A login like Enter's.
            guard let host = state.selectedHost, beginAttempt(&state, host) else { return [] }
            state.notice = Notice("installing the identity key on \(host.name)... (Esc cancels)")
            return [.copyID(host.id, identity: nil)]
        case .search:
            state.search.typing = true
            state.focus = .hosts
        case .cancel:
            if let attempt = state.connecting {
                state.notice = Notice("cancelling the connect to \(attempt.name)...")
                return [.cancelConnect]
            }
            clearSearch(&state)
        case .syncNow:
            state.notice = Notice("syncing now...")
            return [.syncNow]
        case .vaultLock:
            if state.status.vault.isUnlocked {
                state.notice = Notice("vault locked")
                return [.lockVault]
            }
            return [.unlockVault]
        case .sort:
            state.sort = state.sort == .name ? .recent : .name
            state.heldRecency = nil
            rescope(&state, keepHost: state.selectedHost?.id)
            state.notice = Notice("sorted by \(state.sort == .name ? "name" : "last connected")")
        case .reload:
            return [.load]
        case .addHost:
            state.mode = .form(Forms.host(nil, catalog: state.catalog, defaultGroup: state.selectedGroupID))
        case .addGroup:
            state.mode = .form(Forms.group(nil, catalog: state.catalog, parent: state.selectedGroupID))
        case .addIdentity:
            state.mode = .form(Forms.identity(nil))
        case .identities:
            state.identityCursor = clamp(state.identityCursor, count: state.catalog.identities.count)
            state.mode = .identities
        case .conflicts:
            state.conflictsLoaded = false
            state.mode = .conflicts
            return [.loadConflicts]
        case .addForward:
            if let host = state.selectedHost {
                state.mode = .form(Forms.forward(nil, hostID: host.id, hostName: host.name))
            }
        case .edit:
            edit(&state)
        case .delete:
            confirmDelete(&state)
        case .toggleForward:
            return ForwardToggle.run(&state)
        case .toggleReachability:
            ReachabilityColumn.toggle(&state)
        case .help:
            state.mode = .help(scroll: 0)
        case .quit:
            return quit(&state)
        default:
            break
        }
        return []
    }

    /// One login at a time: a second Enter (or `c`) never starts another — nor one to a host selected since — but
    /// says what is under way; Esc cancels it.
    static func beginAttempt(_ state: inout UIState, _ host: ShelfCore.Host) -> Bool {
        if let attempt = state.connecting {
            state.notice = Notice("already connecting to \(attempt.name): wait, or press Esc to cancel", isError: true)
            return false
        }
        state.connecting = ConnectAttempt(hostID: host.id, name: host.name)
        return true
    }

    // MARK: searching

    static func searchKey(_ state: inout UIState, _ key: Key) -> [Effect] {
        if let binding = Keymap.binding(for: key, in: .search) {
            if binding.command != .searchErase { runSearch(&state) }
            switch binding.command {
            case .searchAccept:
                state.search.typing = false
            case .searchCancel:
                clearSearch(&state)
            case .searchErase:
                var query = state.search.query
                if !query.isEmpty { query.removeLast() }
                setQuery(&state, query)
            case .searchDown: move(&state, by: 1)
            case .searchUp: move(&state, by: -1)
            case .searchScope:
                guard state.selectedGroupID != nil else { break }
                state.search.allHosts.toggle()
                state.search.restart()
                state.hostCursor = 0
                state.hostScroll = 0
                runSearchIfSmall(&state)
            default: break
            }
            return []
        }
        if case .char(let ch) = key {
            setQuery(&state, state.search.query + String(ch))
        } else if key == .ctrl("c") {
            return quit(&state)
        }
        return []
    }

    static func setQuery(_ state: inout UIState, _ query: String) {
        // A new query ranks by who was connected last as it is now.
        state.heldRecency = nil
        state.search.setQuery(query)
        state.hostCursor = 0
        state.hostScroll = 0
        runSearchIfSmall(&state)
    }

    /// Small lists filter at once; big ones when the run loop finds no key waiting (`.filterStep`).
    static func runSearchIfSmall(_ state: inout UIState) {
        if state.searchCandidates.count <= SearchState.immediateLimit { runSearch(&state) }
    }

    /// Brings a pending search's results (only over a complete catalog: the first screenful is not all).
    static func runSearch(_ state: inout UIState) {
        guard state.search.isRunning, state.catalog.isComplete else { return }
        let matcher =
            state.heldRecency == nil ? state.catalog.matcher : state.catalog.matcher.withRecency(recentRows(state))
        state.search.run(matcher: matcher, candidates: state.searchCandidates)
        if let wanted = state.wantedHostID { select(&state, hostID: wanted) }
        clampCursors(&state)
    }

    static func clearSearch(_ state: inout UIState) {
        let keep = state.selectedHost?.id
        state.search = SearchState()
        if let keep { select(&state, hostID: keep) }
        clampCursors(&state)
    }

    // MARK: movement

    static func move(_ state: inout UIState, by delta: Int) {
        switch state.focus {
        case .groups:
            let before = state.groupCursor
            state.groupCursor = clamp(state.groupCursor + delta, count: state.groupRows.count)
            if before != state.groupCursor { rescope(&state, keepHost: nil) }
        case .hosts:
            state.wantedHostID = nil
            state.hostCursor = clamp(state.hostCursor + delta, count: state.visible.count)
            state.forwardCursor = 0
        case .forwards:
            state.forwardCursor = clamp(state.forwardCursor + delta, count: state.selectedRules.count)
        }
        clampCursors(&state)
    }

    static func cyclePane(_ state: inout UIState, forward: Bool) {
        var panes: [Pane] = [.groups, .hosts]
        if !state.selectedRules.isEmpty { panes.append(.forwards) }
        let index = panes.firstIndex(of: state.focus) ?? 1
        state.focus = panes[(index + (forward ? 1 : panes.count - 1)) % panes.count]
    }

    static func clamp(_ value: Int, count: Int) -> Int { count == 0 ? 0 : min(max(0, value), count - 1) }

    /// Keeps every cursor on a real row and the selected host on screen.
    static func clampCursors(_ state: inout UIState) {
        state.groupCursor = clamp(state.groupCursor, count: state.groupRows.count)
        let count = state.visible.count
        state.hostCursor = clamp(state.hostCursor, count: count)
        state.forwardCursor = clamp(state.forwardCursor, count: state.selectedRules.count)
        if state.focus == .forwards, state.selectedRules.isEmpty { state.focus = .hosts }
        let rows = Layout(rows: state.rows, columns: state.columns).hostRows
        if state.hostCursor < state.hostScroll { state.hostScroll = state.hostCursor }
        if state.hostCursor >= state.hostScroll + rows { state.hostScroll = state.hostCursor - rows + 1 }
        state.hostScroll = max(0, min(state.hostScroll, max(0, count - rows)))
    }

    static func select(_ state: inout UIState, hostID: UUID) {
        guard let catalogRow = state.catalog.row(of: hostID) else { return }
        if let row = state.visible.firstIndex(of: Int32(catalogRow)) {
            state.hostCursor = row
            if !state.search.isRunning { state.wantedHostID = nil }
            clampCursors(&state)
        }
    }

    // MARK: groups and scope

    static func setGroupOpen(_ state: inout UIState, _ open: Bool) {
        guard let row = state.groupRows[safe: state.groupCursor], let id = row.groupID, row.hasChildren else { return }
        if open { state.collapsed.remove(id) } else { state.collapsed.insert(id) }
        rebuildGroups(&state)
        if let again = state.groupRows.firstIndex(where: { $0.groupID == id }) { state.groupCursor = again }
    }

    static func rebuildGroups(_ state: inout UIState) {
        let tree = state.catalog.tree
        var rows = [
            GroupRow(
                groupID: nil, name: "All hosts", depth: 0, count: state.catalog.totalCount,
                hasChildren: false, expanded: true)
        ]
        var visited: Set<UUID> = []
        func walk(_ parent: UUID?, _ depth: Int) {
            for group in tree.children(of: parent) where visited.insert(group.id).inserted {
                let hasChildren = !tree.children(of: group.id).isEmpty
                let open = !state.collapsed.contains(group.id)
                rows.append(
                    GroupRow(
                        groupID: group.id, name: group.name, depth: depth,
                        count: state.catalog.countByGroup[group.id] ?? 0, hasChildren: hasChildren,
                        expanded: open))
                if open { walk(group.id, depth + 1) }
            }
        }
        walk(nil, 0)
        state.groupRows = rows
        state.groupCursor = clamp(state.groupCursor, count: rows.count)
    }

    /// Recomputes the hosts of the selected group (and all hosts) in sort order, and restarts the search.
    /// A reload that changes who was connected last (a connect just ended) while the list is ranked by it (a search,
    /// or the recent sort) keeps the order the user sees: `g j j j` must land where it did a moment before. The new
    /// order applies from the next change of query or sort.
    static func holdRecency(_ state: inout UIState, across catalog: Catalog) {
        guard state.heldRecency == nil, state.loaded, state.catalog.isComplete,
            state.search.isActive || state.sort == .recent
        else { return }
        let old = state.catalog.table, new = catalog.table
        let before = old.recentRows.map { old.id(Int($0)) }
        if before != new.recentRows.map({ new.id(Int($0)) }) { state.heldRecency = before }
    }

    /// The recency order the list is ranked by, as rows of the current catalog.
    static func recentRows(_ state: UIState) -> [Int32] {
        guard let held = state.heldRecency else { return state.catalog.table.recentRows }
        return held.compactMap { id in state.catalog.row(of: id).map { Int32($0) } }
    }

    static func rescope(_ state: inout UIState, keepHost: UUID?) {
        let table = state.catalog.table
        var all = (0..<Int32(table.count)).map { $0 }
        if state.sort == .recent {
            // Most recent first (the catalog keeps that list), never-connected after them in list order.
            let connected = recentRows(state)
            let seen = Set(connected)
            all = connected + all.filter { !seen.contains($0) }
        }
        state.allRows = all
        if let groupID = state.selectedGroupID {
            let subtree = state.catalog.tree.subtree(of: groupID)
            let wanted = Set(
                table.groupIDs.enumerated().filter { subtree.contains($0.element) }.map { Int32($0.offset) })
            state.scoped = all.filter { wanted.contains(Int32(table.groupIndex(Int($0)))) }
        } else {
            state.scoped = all
        }
        state.search.restart()
        runSearchIfSmall(&state)
        state.hostCursor = 0
        state.hostScroll = 0
        state.wantedHostID = keepHost
        if let keepHost { select(&state, hostID: keepHost) }
        clampCursors(&state)
    }

    // MARK: edit and delete

    static func edit(_ state: inout UIState) {
        switch state.focus {
        case .groups:
            guard let id = state.selectedGroupID, let group = state.catalog.tree.groups[id] else { return }
            state.mode = .form(Forms.group(group, catalog: state.catalog, parent: group.parentID))
        case .hosts:
            guard let host = state.selectedHost else { return }
            state.mode = .form(Forms.host(host, catalog: state.catalog, defaultGroup: host.groupID))
        case .forwards:
            guard let rule = state.selectedRule, let host = state.selectedHost else { return }
            state.mode = .form(Forms.forward(rule, hostID: host.id, hostName: host.name))
        }
    }

    static func confirmDelete(_ state: inout UIState) {
        let catalog = state.catalog
        switch state.focus {
        case .hosts:
            guard let host = state.selectedHost else { return }
            state.mode = .confirm(DeletePlan.host(host, catalog: catalog))
        case .groups:
            guard let id = state.selectedGroupID else { return }
            state.mode = .confirm(DeletePlan.group(id, catalog: catalog))
        case .forwards:
            guard let rule = state.selectedRule, let host = state.selectedHost else { return }
            state.mode = .confirm(
                Confirmation(
                    title: "Delete forward rule?",
                    lines: [
                        "-\(rule.spec.flag) \(rule.spec)\(rule.name.isEmpty ? "" : " (\(rule.name))") of \(host.name)",
                        "Nothing else goes.",
                    ],
                    effect: .deleteForward(rule.id)))
        }
    }

    static func confirmKey(_ state: inout UIState, _ key: Key, _ confirmation: Confirmation) -> [Effect] {
        guard let binding = Keymap.binding(for: key, in: .dialog) else { return [] }
        if confirmation.agentQuestion != nil {
            return AgentQuestionReducer.answer(&state, binding.command == .confirmYes, confirmation)
        }
        closeForm(&state)
        if binding.command == .confirmYes {
            state.notice = Notice(confirmation.yesNotice)
            if case .startForward(let ruleID, _) = confirmation.effect { ForwardToggle.starting(&state, ruleID) }
            return [confirmation.effect]
        }
        state.notice = Notice(confirmation.noNotice)
        return []
    }

    /// Leaves a form or confirmation: back to the identity list when it was opened there, else browsing.
    static func closeForm(_ state: inout UIState) {
        state.mode = state.modeAfterForm ?? .browse
        state.modeAfterForm = nil
    }

    static func helpKey(_ state: inout UIState, _ key: Key, scroll: Int) -> [Effect] {
        guard let binding = Keymap.binding(for: key, in: .help) else { return [] }
        switch binding.command {
        case .helpDown: state.mode = .help(scroll: scroll + 1)
        case .helpUp: state.mode = .help(scroll: max(0, scroll - 1))
        default: state.mode = .browse
        }
        return []
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { index >= 0 && index < count ? self[index] : nil }
}
