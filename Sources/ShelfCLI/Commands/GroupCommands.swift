// GroupCommands: `sshelf group list|add|edit|rm|mv`, groups addressed by slash paths (`prod/eu`); the rules (paths,
// cycles, what a delete takes along) are GroupOperations'.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfServices
import ShelfStore

enum GroupCommands {
    static let commands: [CommandSpec] = [
        CommandSpec(
            path: ["group", "list"], summary: "show the group tree with host counts",
            options: ListOptions.self, run: list),
        CommandSpec(
            path: ["group", "add"], summary: "create a group (and any missing parents)",
            arguments: [ArgumentSpec(name: "PATH", help: "slash path, e.g. prod/eu", completion: .group)],
            examples: ["sshelf group add prod/eu"], run: add),
        CommandSpec(
            path: ["group", "edit"], summary: "change a group's settings",
            details: "--pq require sends every session of every host in the group and its subgroups through OpenSSH's "
                + "ssh with post-quantum key exchange only (sshelf's own client has none); off leaves it to each host. "
                + "--record: a host without its own setting takes its group's; a group without one takes its parent's.",
            arguments: [ArgumentSpec(name: "PATH", help: "slash path", completion: .group)],
            options: EditOptions.self,
            examples: ["sshelf group edit prod --pq require", "sshelf group edit prod --record on"], run: edit),
        CommandSpec(
            path: ["group", "rm"], summary: "remove a group",
            details: "A group that still holds hosts or groups is kept unless --recursive is given.",
            arguments: [ArgumentSpec(name: "PATH", help: "slash path", completion: .group)],
            options: RemoveOptions.self,
            run: remove),
        CommandSpec(
            path: ["group", "mv"], summary: "rename a group or move it under another",
            arguments: [
                ArgumentSpec(name: "PATH", help: "the group's current path", completion: .group),
                ArgumentSpec(name: "NEWPATH", help: "its new path; missing parents are created", completion: .group),
            ],
            examples: ["sshelf group mv staging prod/staging"], run: move),
    ]

    struct ListOptions: CommandOptions {
        let json = Flag("json", "print JSON for scripts")
        let names = Flag("names", "print only the group paths, one per line")
    }

    struct EditOptions: CommandOptions {
        let pq = Option(
            "pq", .postQuantum,
            "require: every session of its hosts through OpenSSH with post-quantum key exchange only")
        let record = Option(
            "record", .recordSetting, placeholder: "off|on|ask|group",
            "record its hosts' interactive sessions (see 'sshelf sessions'); group: as its parent says")
    }

    struct RemoveOptions: CommandOptions {
        let recursive = Flag(
            "recursive", short: "r", "also remove its subgroups and every host in them, with their forward rules")
    }

    static func list(_ call: Call<ListOptions>, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        let (tree, hosts) = try store.read { store in (GroupTree(try store.groups()), try store.hosts()) }
        var direct: [UUID?: Int] = [:]
        for host in hosts { direct[host.groupID.flatMap { tree.groups[$0] != nil ? $0 : nil }, default: 0] += 1 }
        func total(_ id: UUID) -> Int { tree.subtree(of: id).reduce(0) { $0 + (direct[$1] ?? 0) } }
        let flat = tree.flattened()
        if call[\.json] {
            struct GroupView: Encodable {
                var id: String; var name: String; var path: String; var parentID: String?; var hosts: Int;
                var hostsInTree: Int; var pq: String
            }
            let views = flat.map {
                GroupView(
                    id: $0.group.id.uuidString.lowercased(), name: $0.group.name, path: tree.path(of: $0.group.id),
                    parentID: $0.group.parentID?.uuidString.lowercased(), hosts: direct[$0.group.id] ?? 0,
                    hostsInTree: total($0.group.id), pq: $0.group.pq.rawValue)
            }
            context.print(try JSONOutput.encode(views))
            return 0
        }
        if call[\.names] {
            context.output(flat.map { Display.safe(tree.path(of: $0.group.id)) + "\n" }.joined())
            return 0
        }
        if flat.isEmpty {
            context.errorOutput("no groups yet; 'sshelf group add PATH' creates one\n")
            return 0
        }
        var out = ""
        for (group, depth) in flat {
            let count = total(group.id)
            out +=
                "\(String(repeating: "  ", count: depth))\(Display.safe(group.name))/  (\(count) "
                + "host\(count == 1 ? "" : "s"))"
                + (group.pq.requires ? "  pq \(Display.safe(group.pq.rawValue))\n" : "\n")
        }
        if let loose = direct[nil], loose > 0 { out += "(top level)  (\(loose) host\(loose == 1 ? "" : "s"))\n" }
        context.output(out)
        return 0
    }

    static func add(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let path = call.arguments[0]
        guard !(try GroupTree.parsePath(path)).isEmpty else {
            throw ShelfError(.invalid, "group add: the path is empty")
        }
        let existed = try context.store().write { store -> Bool in
            if GroupTree(try store.groups()).find(path) != nil { return true }
            try GroupOperations.create(path, in: store)
            return false
        }
        context.print(existed ? "group \(Display.safe(path)) already exists" : "added group \(Display.safe(path))")
        return 0
    }

    static func edit(_ call: Call<EditOptions>, _ context: AppContext) throws -> Int32 {
        let pq = call[\.pq]
        let record = call[\.record]?.setting, recordGiven = call[\.record] != nil
        guard pq != nil || recordGiven else {
            throw ShelfError(
                .usage, "group edit: nothing to change",
                hint: "sshelf group edit \(ShellWord.quote(call.arguments[0])) --pq require (or --record on)")
        }
        let (path, hosts) = try context.store().write { store in
            let tree = GroupTree(try store.groups())
            let group = try Resolve.group(call.arguments[0], tree: tree)
            if let pq { try GroupOperations.setPostQuantum(pq, of: group.id, in: store) }
            if recordGiven { try GroupOperations.setRecording(record, of: group.id, in: store) }
            let subtree = tree.subtree(of: group.id)
            return (
                tree.path(of: group.id), try store.hosts().filter { $0.groupID.map(subtree.contains) == true }.count
            )
        }
        if let pq {
            context.print(
                "group \(Display.safe(path)): pq \(pq.rawValue)"
                    + (pq.requires
                        ? " (\(Display.counted(hosts, "host")) in it go through OpenSSH's ssh with post-quantum key "
                            + "exchange)"
                        : ""))
        }
        if recordGiven {
            context.print("group \(Display.safe(path)): record \(record?.rawValue ?? "as its parent")")
        }
        return 0
    }

    static func remove(_ call: Call<RemoveOptions>, _ context: AppContext) throws -> Int32 {
        let deleted = try context.store().write { store in
            let group = try Resolve.group(call.arguments[0], tree: GroupTree(try store.groups()))
            return try GroupOperations.delete(group.id, recursive: call[\.recursive], in: store)
        }
        context.print(deleted?.summary ?? "the group is already gone")
        return 0
    }

    static func move(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let newPath = try GroupTree.parsePath(call.arguments[1])
        guard let newName = newPath.last else { throw ShelfError(.invalid, "group mv: the new path is empty") }
        let placed = try context.store().write { store in
            var group = try Resolve.group(call.arguments[0], tree: GroupTree(try store.groups()))
            group.name = newName
            return try GroupOperations.place(group, under: newPath.dropLast().joined(separator: "/"), in: store)
        }
        context.print("moved group \(Display.safe(placed.oldPath)) to \(Display.safe(placed.path))")
        return 0
    }
}
