// StoreWorker: runs the TUI's store effects (load, save, delete) on one serial queue, so a slow disk or a
// lock held by another sshelf process never stalls typing; results come back through the mailbox. Each save or
// delete is one call to the operations layer, the same the CLI makes.
import Dispatch
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfServices
import ShelfStore
import ShelfSync
import ShelfUI
import ShelfVault

final class StoreWorker: @unchecked Sendable {
    private let queue = DispatchQueue(label: "sshelf.tui.store")
    private let workspace: Workspace
    private let mailbox: Mailbox
    /// Touched only on `queue`.
    private var opened: Store?
    /// Touched only on `queue`: a whole catalog was delivered, so the screen shows every host.
    private var deliveredWhole = false

    /// Which reference keys the vault holds, read with each load (names only).
    private let secretsPresent: @Sendable () -> Set<String>?

    /// Asks for the vault passphrase in a dialog (nil: the user left it), for a password saved from the host form.
    private let askVaultPassphrase: @Sendable (String) -> SecretBytes?

    init(
        workspace: Workspace, mailbox: Mailbox, secretsPresent: @escaping @Sendable () -> Set<String>? = { nil },
        askVaultPassphrase: @escaping @Sendable (String) -> SecretBytes? = { _ in nil }
    ) {
        self.workspace = workspace
        self.secretsPresent = secretsPresent
        self.askVaultPassphrase = askVaultPassphrase
        self.mailbox = mailbox
    }

    func submit(_ effect: Effect) {
        mailbox.expect()
        queue.async { [self] in run(effect) }
    }

    private func store() throws -> Store {
        if let opened { return opened }
        let store = try workspace.openStore()
        opened = store
        return store
    }

    private func run(_ effect: Effect) {
        if case .load = effect {
            do {
                let store = try store()
                if let catalog = try CatalogLoader.cached(store, secretsPresent: secretsPresent()) {
                    mailbox.deliver(.loaded(catalog))
                    deliveredWhole = true
                    return
                }
                // The cache is stale (a change since it was built). On the first load, rows first, then the whole
                // catalog; once every host is on screen, only the whole one: a first screenful would swap a search's
                // results for "loading all hosts" until the rebuild lands.
                if !deliveredWhole {
                    mailbox.expect()
                    mailbox.deliver(.loaded(try CatalogLoader.first(store)))
                }
                mailbox.deliver(.loaded(try CatalogLoader.load(store, secretsPresent: secretsPresent())))
                deliveredWhole = true
            } catch {
                let failure = ShelfError(from: error)
                mailbox.deliver(.loadFailed(failure.message, hint: TUIErrorLine.hint(for: failure)))
            }
            return
        }
        if case .previewImport = effect {
            mailbox.deliver(.importPreviewed(importConfig(dryRun: true)))
            return
        }
        if case .runImport = effect {
            mailbox.deliver(.imported(importConfig(dryRun: false)))
            return
        }
        if case .loadConflicts = effect {
            do {
                mailbox.deliver(.conflicts(try ConflictItems.load(try store())))
            } catch {
                mailbox.deliver(.operationFinished(.failure(StoreWorker.failure(error))))
            }
            return
        }
        do {
            let store = try store()
            let marking = autostartMarked(effect, store)
            let line = try perform(effect, store: store)
            if let marking, let move = autostartMove(marking, store) {
                mailbox.deliver(.operationFinished(.success(line)), .askAutostartMove(move))
            } else {
                mailbox.deliver(.operationFinished(.success(line)))
            }
        } catch {
            mailbox.deliver(.operationFinished(.failure(StoreWorker.failure(error))))
        }
    }

    /// `import ssh-config` of ~/.ssh/config, the CLI's own (ConfigImport): the summary's lines (a dry run: what it
    /// would do), or why the file cannot be imported with what to do about it.
    private func importConfig(dryRun: Bool) -> Result<[String], OperationFailure> {
        do {
            let outcome = try ConfigImport.run(path: nil, dryRun: dryRun, workspace: workspace, store: { try store() })
            return .success(outcome.summary.lines(path: outcome.path, dryRun: dryRun))
        } catch {
            let failure = ShelfError(from: error)
            // The hint on a line of its own under the error, as the CLI prints it.
            return .failure(OperationFailure(failure.message + (failure.hint.map { "\n" + $0 } ?? "")))
        }
    }

    /// The rule a forward save is about to mark autostart (enabled and autostart now, not so before), else nil.
    private func autostartMarked(_ effect: Effect, _ store: Store) -> PortForwardRule? {
        guard case .saveForward(let rule) = effect, rule.autostart, rule.enabled else { return nil }
        let before = (try? store.forwardRules(hostID: rule.hostID))?.first { $0.id == rule.id }
        return before.map { $0.autostart && $0.enabled } == true ? nil : rule
    }

    /// What the dialog asks about a rule just marked autostart: its host's credentials that lock with the vault
    /// session (nil when there are none, as `forward add --autostart` then says nothing).
    private func autostartMove(_ rule: PortForwardRule, _ store: Store) -> AutostartMove? {
        guard let hostID = rule.hostID else { return nil }
        let quiet = workspace.warning(to: { _ in })
        let items = AutostartCredentials.toMove(hostID: hostID, workspace: quiet, store: store)
        guard !items.isEmpty else { return nil }
        return AutostartMove(
            rule: "-\(rule.spec.flag) \(rule.spec)",
            items: items.map {
                AutostartMove.Item(key: $0.key, what: Display.safe($0.what), stored: $0.stored.rawValue)
            },
            target: AutostartCredentials.unattendedClass.rawValue)
    }

    static func message(_ error: Error) -> String { ShelfError(from: error).message }

    /// A failed save as the form shows it: the unique-name rule's refusal under the name field (the CLI's
    /// --allow-duplicate hint does not apply here: the form has no such switch). A hint given as data is shown in the
    /// TUI's words; one given as words only may name the CLI's flags, and is left out.
    static func failure(_ error: Error) -> OperationFailure {
        if let taken = error as? HostOperations.NameTaken {
            return OperationFailure(taken.message, field: taken.isAlias ? "aliases" : "name")
        }
        if let failure = error as? FieldFailure { return OperationFailure(failure.message, field: failure.field) }
        let failure = ShelfError(from: error)
        return OperationFailure(failure.message + (failure.guidance.map { "; hint: \(TUIErrorLine.words($0))" } ?? ""))
    }

    /// Option lines the form adds are checked as `sshelf edit --option` checks them (the installed ssh must read
    /// each), the message under the Options field.
    private func checkNewOptions(_ host: ShelfCore.Host, store: Store) throws {
        let old = Set(try store.host(id: host.id)?.options ?? [])
        do {
            try OptionInput.check(host.options.filter { !old.contains($0) }, flag: "option")
        } catch {
            throw FieldFailure(field: "options", message: StoreWorker.message(error))
        }
    }

    private func perform(_ effect: Effect, store: Store) throws -> String {
        switch effect {
        case .saveHost(let host, let groupPath, let password):
            try checkNewOptions(host, store: store)
            let saved = try HostOperations.save(host, groupPath: groupPath, in: store)
            let line =
                "\(saved.existed ? "saved" : "added") \(Display.safe(saved.host.name)) "
                + "(\(Display.safe(saved.host.destination)))"
            return line
                + (try TUIHostPassword.apply(
                    password, hostID: host.id, workspace: workspace, store: store,
                    ask: askVaultPassphrase))
        case .saveGroup(let group, let parentPath):
            let placed = try GroupOperations.place(group, under: parentPath, in: store)
            return "\(placed.existed ? "saved" : "added") group \(Display.safe(placed.path))"
        case .saveForward(let rule):
            let hostName = try ForwardOperations.save(rule, in: store)
            return "saved forward -\(rule.spec.flag) \(rule.spec) of \(Display.safe(hostName))"
        case .saveIdentity(let identity):
            return try IdentityOperations.save(identity, in: store).summary
        case .deleteHost(let id):
            return try HostOperations.delete([id], in: store).first?.summary ?? "already gone"
        case .deleteGroup(let id):
            return try GroupOperations.delete(id, recursive: true, in: store)?.summary ?? "already gone"
        case .deleteForward(let id):
            guard let rule = try ForwardOperations.delete(id, in: store) else { return "already gone" }
            return "deleted forward -\(rule.spec.flag) \(rule.spec)"
        case .deleteIdentity(let id):
            return try IdentityOperations.delete(id, workspace: workspace, in: store)?.summary ?? "already gone"
        case .settleConflict(let id, let takeOther):
            try store.write { try $0.settleConflict(id, take: takeOther ? .other : .kept) }
            try SyncRunner.refreshConflictCount(store: store, locations: workspace.locations)
            return "conflict \(id) settled: took the \(takeOther ? "other" : "kept") value; it syncs like any edit"
        case .load, .loadConflicts, .connect, .cancelConnect, .openInTmux, .launchSession, .answerPrompt, .startForward,
            .stopForward, .unlockVault, .lockVault, .syncNow, .copyID, .answerAgent, .moveCredentials, .runFleet,
            .stopFleet, .previewImport, .runImport, .openFiles, .listFiles, .closeFiles, .copyFiles,
            .cancelCopy, .changeFiles, .editFile, .runEditor, .resolveEdit, .quit:
            return ""
        }
    }
}

/// A save refused because of one form field: the message goes under it.
struct FieldFailure: Error {
    var field: String
    var message: String
}
