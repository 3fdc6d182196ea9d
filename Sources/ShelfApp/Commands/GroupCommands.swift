// GroupCommands: `sshelf group list|add|rm|mv`, groups addressed by slash paths (`prod/eu`).
import Foundation
import ShelfCore
import ShelfStore

enum GroupCommands {
    static let commands: [CommandSpec] = [
        CommandSpec(path: ["group", "list"], summary: "show the group tree with host counts",
                    options: [.flag("json", "print JSON for scripts")], run: list),
        CommandSpec(path: ["group", "add"], summary: "create a group (and any missing parents)",
                    arguments: [ArgumentSpec(name: "PATH", help: "slash path, e.g. prod/eu", completion: .group)],
                    examples: ["sshelf group add prod/eu"], run: add),
        CommandSpec(path: ["group", "rm"], summary: "remove a group",
                    details: "A group that still holds hosts or groups is kept unless --recursive is given.",
                    arguments: [ArgumentSpec(name: "PATH", help: "slash path", completion: .group)],
                    options: [.flag("recursive", short: "r", "also remove its subgroups and every host in them, with their forward rules")],
                    run: remove),
        CommandSpec(path: ["group", "mv"], summary: "rename a group or move it under another",
                    arguments: [ArgumentSpec(name: "PATH", help: "the group's current path", completion: .group),
                                 ArgumentSpec(name: "NEWPATH", help: "its new path; missing parents are created", completion: .group)],
                    examples: ["sshelf group mv staging prod/staging"], run: move),
    ]

    static func list(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        let (tree, hosts) = try store.read { store in (GroupTree(try store.groups()), try store.hosts()) }
        var direct: [UUID?: Int] = [:]
        for host in hosts { direct[host.groupID.flatMap { tree.groups[$0] != nil ? $0 : nil }, default: 0] += 1 }
        func total(_ id: UUID) -> Int { tree.subtree(of: id).reduce(0) { $0 + (direct[$1] ?? 0) } }
        let flat = tree.flattened()
        if call.flag("json") {
            struct GroupView: Encodable { var id: String; var name: String; var path: String; var parentID: String?; var hosts: Int; var hostsInTree: Int }
            let views = flat.map { GroupView(id: $0.group.id.uuidString.lowercased(), name: $0.group.name, path: tree.path(of: $0.group.id),
                                             parentID: $0.group.parentID?.uuidString.lowercased(), hosts: direct[$0.group.id] ?? 0,
                                             hostsInTree: total($0.group.id)) }
            context.print(try JSONOutput.encode(views))
            return 0
        }
        if flat.isEmpty {
            context.errorOutput("no groups yet; 'sshelf group add PATH' creates one\n")
            return 0
        }
        var out = ""
        for (group, depth) in flat {
            let count = total(group.id)
            out += "\(String(repeating: "  ", count: depth))\(Display.safe(group.name))/  (\(count) host\(count == 1 ? "" : "s"))\n"
        }
        if let loose = direct[nil], loose > 0 { out += "(top level)  (\(loose) host\(loose == 1 ? "" : "s"))\n" }
        context.output(out)
        return 0
    }

    static func add(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let path = call.arguments[0]
        guard !GroupTree.components(path).isEmpty else { throw ShelfError(.usage, "group add: the path is empty") }
        let store = try context.store()
        let existed = try store.write { store -> Bool in
            if GroupTree(try store.groups()).find(path) != nil { return true }
            _ = try Resolve.groupCreating(path, in: store)
            return false
        }
        context.print(existed ? "group \(Display.safe(path)) already exists" : "added group \(Display.safe(path))")
        return 0
    }

    static func remove(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        let summary = try store.write { store -> String in
            let tree = GroupTree(try store.groups())
            let group = try Resolve.group(call.arguments[0], tree: tree)
            let subtree = tree.subtree(of: group.id)
            let hosts = try store.hosts().filter { $0.groupID.map(subtree.contains) ?? false }
            let subgroups = subtree.count - 1
            if (!hosts.isEmpty || subgroups > 0) && !call.flag("recursive") {
                throw ShelfError(.invalid, "group '\(Display.safe(tree.path(of: group.id)))' holds \(hosts.count) host\(hosts.count == 1 ? "" : "s") and \(subgroups) group\(subgroups == 1 ? "" : "s")",
                                 hint: "move them out first ('sshelf mv NAME --group PATH'), or pass --recursive to remove them too")
            }
            let deletion = try store.deleteGroupTree(group.id)
            var text = "removed group \(Display.safe(tree.path(of: group.id)))"
            if deletion.subgroups > 0 || deletion.hosts > 0 {
                text += " with \(deletion.subgroups) subgroup(s), \(deletion.hosts) host(s) and \(deletion.rules) forward rule(s)"
            }
            return text
        }
        context.print(summary)
        return 0
    }

    static func move(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        let newPath = GroupTree.components(call.arguments[1])
        guard let newName = newPath.last else { throw ShelfError(.usage, "group mv: the new path is empty") }
        let summary = try store.write { store -> String in
            let tree = GroupTree(try store.groups())
            var group = try Resolve.group(call.arguments[0], tree: tree)
            let oldPath = tree.path(of: group.id)
            if let existing = tree.find(newPath.joined(separator: "/")), existing.id != group.id {
                throw ShelfError(.invalid, "group '\(Display.safe(newPath.joined(separator: "/")))' already exists",
                                 hint: "choose another path, or move the hosts with 'sshelf mv NAME --group PATH'")
            }
            let parentPath = newPath.dropLast().joined(separator: "/")
            // Refuse before creating anything: moving a group into its own subtree would make a cycle.
            if let parent = tree.find(parentPath), ModelCheck.wouldCycle(group: group.id, parent: parent.id, in: tree.groups) {
                throw ShelfError(.invalid, "cannot move '\(Display.safe(oldPath))' inside itself")
            }
            if parentPath.hasPrefix(oldPath + "/") || parentPath == oldPath {
                throw ShelfError(.invalid, "cannot move '\(Display.safe(oldPath))' inside itself")
            }
            let parent = try Resolve.groupCreating(parentPath, in: store)
            group.name = newName
            group.parentID = parent?.id
            group.updatedAt = Date()
            let problems = Validation.problems(group)
            guard problems.isEmpty else { throw ShelfError.invalid(problems) }
            try store.save(group)
            return "moved group \(Display.safe(oldPath)) to \(Display.safe(newPath.joined(separator: "/")))"
        }
        context.print(summary)
        return 0
    }
}
