// StoreWorker: runs the TUI's store effects (load, save, delete) on one serial queue, so a slow disk or a
// lock held by another sshelf process never stalls typing; results come back through the mailbox.
import Foundation
import ShelfCore
import ShelfStore
import ShelfUI

final class StoreWorker: @unchecked Sendable {
    private let queue = DispatchQueue(label: "sshelf.tui.store")
    private let path: String
    private let mailbox: Mailbox
    /// Touched only on `queue`.
    private var opened: Store?

    /// Which reference keys the vault holds, read with each load (names only).
    private let secretsPresent: @Sendable () -> Set<String>?

    init(path: String, mailbox: Mailbox, secretsPresent: @escaping @Sendable () -> Set<String>? = { nil }) {
        self.path = path
        self.secretsPresent = secretsPresent
        self.mailbox = mailbox
    }

    func submit(_ effect: Effect) {
        mailbox.expect()
        queue.async { [self] in run(effect) }
    }

    private func store() throws -> Store {
        if let opened { return opened }
        let store = try Store(path: path)
        opened = store
        return store
    }

    private func run(_ effect: Effect) {
        if case .load = effect {
            do {
                mailbox.deliver(.loaded(try CatalogLoader.load(try store(), secretsPresent: secretsPresent())))
            } catch {
                mailbox.deliver(.loadFailed(StoreWorker.message(error)))
            }
            return
        }
        do {
            let line = try perform(effect, store: try store())
            mailbox.deliver(.operationFinished(.success(line)))
        } catch {
            mailbox.deliver(.operationFinished(.failure(OperationFailure(StoreWorker.message(error)))))
        }
    }

    static func message(_ error: Error) -> String {
        switch error {
        case let error as ShelfError: error.message
        case let error as StoreError: error.message
        case let error as ValidationError: error.message
        default: "\(error)"
        }
    }

    private func perform(_ effect: Effect, store: Store) throws -> String {
        switch effect {
        case .saveHost(var host, let groupPath):
            return try store.write { store in
                let existed = try store.host(id: host.id) != nil
                host.groupID = try Resolve.groupCreating(groupPath, in: store)?.id
                try HostCommands.validate(host, store: store)
                try store.save(host)
                return "\(existed ? "saved" : "added") \(Display.safe(host.name)) (\(Display.safe(host.destination)))"
            }
        case .saveGroup(var group, let parentPath):
            return try store.write { store in
                let tree = GroupTree(try store.groups())
                let existed = tree.groups[group.id] != nil
                if existed, let parent = tree.find(parentPath), ModelCheck.wouldCycle(group: group.id, parent: parent.id, in: tree.groups) {
                    throw ShelfError(.invalid, "cannot move '\(Display.safe(tree.path(of: group.id)))' inside itself")
                }
                let parent = try Resolve.groupCreating(parentPath, in: store)
                if !existed || group.parentID != parent?.id {
                    group.sortOrder = (GroupTree(try store.groups()).children(of: parent?.id).map(\.sortOrder).max() ?? -1) + 1
                }
                group.parentID = parent?.id
                let problems = Validation.problems(group)
                guard problems.isEmpty else { throw ShelfError.invalid(problems) }
                try store.save(group)
                return "\(existed ? "saved" : "added") group \(Display.safe(GroupTree(try store.groups()).path(of: group.id)))"
            }
        case .saveForward(let rule):
            return try store.write { store in
                guard let hostID = rule.hostID, let host = try store.host(id: hostID) else {
                    throw ShelfError(.notFound, "the host of this forward rule is gone")
                }
                let problems = Validation.problems(rule)
                guard problems.isEmpty else { throw ShelfError.invalid(problems) }
                try store.save(rule)
                return "saved forward -\(rule.spec.flag) \(rule.spec) of \(Display.safe(host.name))"
            }
        case .saveIdentity(let identity):
            return try store.write { store in
                let problems = Validation.problems(identity)
                guard problems.isEmpty else { throw ShelfError.invalid(problems) }
                try store.save(identity)
                return "saved identity \(Display.safe(identity.name))"
            }
        case .deleteHost(let id):
            return try store.write { store in
                guard let host = try store.host(id: id), let rules = try store.deleteHostWithRules(id) else { return "already gone" }
                return "deleted \(Display.safe(host.name))" + (rules == 0 ? "" : " and its \(rules) forward rule(s)")
            }
        case .deleteGroup(let id):
            return try store.write { store in
                let tree = GroupTree(try store.groups())
                guard tree.groups[id] != nil else { return "already gone" }
                let path = tree.path(of: id)
                let deletion = try store.deleteGroupTree(id)
                return "deleted group \(Display.safe(path)) with \(deletion.hosts) host(s)"
            }
        case .deleteForward(let id):
            return try store.write { store in
                try store.deleteForwardRule(id)
                return "deleted forward rule"
            }
        case .deleteIdentity(let id):
            return try store.write { store in
                guard let identity = try store.identities().first(where: { $0.id == id }),
                    let users = try store.deleteIdentityClearingHosts(id)
                else { return "already gone" }
                return "deleted identity \(Display.safe(identity.name))"
                    + (users == 0 ? "" : "; cleared it from \(users) host(s)")
            }
        case .load, .connect, .launchSession, .answerPrompt, .startForward, .stopForward, .copyID, .answerAgent, .quit:
            return ""
        }
    }
}
