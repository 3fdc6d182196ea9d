// HostCommands: list, show, add, edit, rm and mv of hosts — the options parsed into a host, then one call to
// HostOperations. Writes happen inside one BEGIN IMMEDIATE transaction each, so two sshelf processes editing at
// once never lose an update.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfServices
import ShelfStore
import ShelfSystem
import ShelfUI

enum HostCommands {
    /// The host's fields, as `add` and `edit` take them.
    struct HostFieldOptions: CommandOptions {
        let host = Option(
            "host", short: "H", .text("HOSTNAME"), "address to connect to: DNS name, IPv4 or IPv6")
        let user = Option("user", short: "u", .text("USER"), "login user (default: ssh's default)")
        let port = Option("port", short: "p", .port, "port, 1-65535 (default 22)")
        let group = Option(
            "group", short: "g", .text("PATH", completion: .group),
            "group path such as prod/eu; created if missing ('' or / for none)")
        let tag = Repeated("tag", short: "t", .text("TAG"), "add a tag (repeatable)")
        let alias = Repeated(
            "alias", .text("NAME"),
            "another name the host answers to, like a second name on its Host line (repeatable)")
        let auth = Option("auth", .authMethod, "auto, publickey, password, keyboardInteractive or agent")
        let identity = Option(
            "identity", .text("NAME", completion: .identity), "identity (key) to log in with ('' for none)")
        let jump = Option(
            "jump", .text("HOST[,HOST...]", completion: .host),
            "jump through these hosts, outermost first ('' for none)")
        let notes = Option("notes", .text("TEXT"), "free-form notes")
        let pq = Option(
            "pq", .postQuantum,
            "require: every session through OpenSSH with post-quantum key exchange only (default off)")
        let record = Option(
            "record", .recordSetting, placeholder: "off|on|ask|group",
            "record its interactive sessions, encrypted (see 'sshelf sessions'); group: as its group says")
        let option = Repeated(
            "option", .text("'KEY VALUE'"),
            "keep an ssh_config option, e.g. 'ServerAliveInterval 30' (replaces that keyword's lines; repeatable)")
    }

    /// What `add` and `edit` both take.
    protocol HostChange: CommandOptions {
        var fields: HostFieldOptions { get }
        var allowDuplicate: Flag { get }
    }

    static let allowDuplicate = Flag(
        "allow-duplicate", "allow a name another host already has (the two are then named as NAME@ID)")

    struct ListOptions: CommandOptions {
        let group = Option(
            "group", short: "g", .text("PATH", completion: .group), "only hosts in this group and its subgroups")
        let json = Flag("json", "print JSON (an array of host records) for scripts")
        let names = Flag(
            "names",
            "print only the names, one per line, as commands take them (NAME@ID where several hosts share a name)")
        let reachable = Flag(
            "reachable", "add whether each host answers a TCP connect, and how fast (a jump chain: its first hop)")
        let timeout = Option(
            "timeout", .seconds(atMost: ReachableListing.longestTimeout),
            "with --reachable: connect timeout per host and address (default \(Int(Reachability.timeoutSeconds)))")
    }

    struct ShowOptions: CommandOptions { let json = Flag("json", "print JSON for scripts") }

    struct AddOptions: HostChange {
        let fields = HostFieldOptions()
        let allowDuplicate = HostCommands.allowDuplicate
    }

    struct EditOptions: HostChange {
        let fields = HostFieldOptions()
        let rename = Option("rename", .text("NEWNAME"), "give the host a new name")
        let untag = Repeated("untag", .text("TAG"), "remove a tag (repeatable)")
        let removeAlias = Repeated("remove-alias", .text("NAME"), "remove an alias (repeatable)")
        let removeOption = Repeated(
            "remove-option", .text("KEY"), "remove every line of this ssh_config option (repeatable)")
        let allowDuplicate = HostCommands.allowDuplicate
    }

    struct RemoveOptions: CommandOptions {
        let force = Flag("force", short: "f", "remove hosts even when other hosts jump through them")
    }

    struct MoveOptions: CommandOptions {
        let group = Option(
            "group", short: "g", .text("PATH", completion: .group), "destination group ('' or / for the top level)")
    }

    static let commands: [CommandSpec] = [
        CommandSpec(
            path: ["list"], summary: "list hosts, optionally filtered",
            details: """
                Every word of FILTER must match within one field of the host (its name, hostname, user, a tag, an \
                alias or its group path), fuzzily: its letters in order, not necessarily adjacent, case and accents \
                ignored; a word written :PORT (:2222) matches hosts whose port starts with those digits. Best matches \
                first (a whole field, then a prefix, then word starts and adjacent letters), ties by last connected, \
                then name: the same rule and order as the TUI's search. Words @group/path (its subgroups too) and \
                tag:NAME pick hosts as they do for 'sshelf run' (the hosts of each, added up); the other words \
                search among those.
                --reachable opens a TCP connection to each listed host's address (for a host with a jump chain, to the \
                first jump host's, shown as "via HOP"), \(Reachability.concurrency) at a time, and closes it at once: \
                nothing is sent, no credential is used. The REACHABLE column says "up 0.4 ms" or "down: refused", \
                "down: timeout", "down: no such name"; --json adds a "reachable" field. The exit status does not \
                depend on the answers.
                """,
            arguments: [ArgumentSpec(name: "FILTER", help: "words to search for", optional: true, variadic: true)],
            options: ListOptions.self,
            examples: [
                "sshelf list", "sshelf list prod db", "sshelf list :2222", "sshelf list --group prod/eu --json",
                "sshelf list --reachable prod",
            ],
            run: list),
        CommandSpec(
            path: ["show"], summary: "show one host with its forward rules",
            arguments: [
                ArgumentSpec(
                    name: "NAME", help: "host name (NAME@ID when several hosts share it, or an id prefix)",
                    completion: .host)
            ],
            options: ShowOptions.self, run: show),
        CommandSpec(
            path: ["add"], summary: "add a host",
            details:
                "The address is DESTINATION as ssh takes it ([USER@]HOST, or ssh://[USER@]HOST[:PORT]; "
                + "[USER@]HOST:PORT too, an IPv6 address then in brackets), or --host with --user and --port. "
                + "Unless --allow-duplicate is given, NAME and each --alias must not be the name or an alias of "
                + "another host (compared ignoring case).",
            arguments: [
                ArgumentSpec(name: "NAME", help: "the alias you will type, e.g. prod-db"),
                ArgumentSpec(
                    name: "DESTINATION", help: "[USER@]HOST[:PORT] or ssh://[USER@]HOST[:PORT], instead of --host",
                    optional: true),
            ],
            options: AddOptions.self,
            examples: [
                "sshelf add prod-db deploy@db1.example.com:2222 --group prod/eu --tag db",
                "sshelf add prod-db --host db1.example.com --user deploy --group prod/eu --tag db",
            ],
            run: add),
        CommandSpec(
            path: ["edit"], summary: "change hosts' settings",
            details: "Only the options given change. --tag adds a tag, --untag removes one; --alias adds an alias, "
                + "--remove-alias removes one. --rename refuses a name another host has unless --allow-duplicate is "
                + "given. TARGETS are host names, @group/path (with its subgroups) or tag:NAME, as 'sshelf rm' takes "
                + "them; all change in one transaction, or none does. What names or addresses one host (--rename, "
                + "--host, --alias, --remove-alias) takes one host.",
            arguments: [
                ArgumentSpec(name: "TARGETS", help: "hosts, @group or tag:NAME", variadic: true, completion: .host)
            ],
            options: EditOptions.self,
            examples: [
                "sshelf edit prod-db --port 2222 --tag critical", "sshelf edit web1 --alias web1.prod",
                "sshelf edit prod-db --option 'ServerAliveInterval 15' --remove-option ForwardAgent",
                "sshelf edit @prod tag:db --tag critical",
            ],
            run: edit),
        CommandSpec(
            path: ["rm"], summary: "remove hosts and their forward rules",
            details: "A host that other hosts jump through is kept (they could no longer connect) unless --force, or "
                + "unless they are removed in the same command. TARGETS are host names, @group/path (with its "
                + "subgroups) or tag:NAME, as 'sshelf run' takes them (but no search).",
            arguments: [
                ArgumentSpec(name: "TARGETS", help: "hosts, @group or tag:NAME", variadic: true, completion: .host)
            ],
            options: RemoveOptions.self,
            run: remove),
        CommandSpec(
            path: ["mv"], summary: "move hosts to another group",
            details: "TARGETS are host names, @group/path (with its subgroups) or tag:NAME, as 'sshelf rm' takes them. "
                + "All move in one transaction, or none does.",
            arguments: [
                ArgumentSpec(name: "TARGETS", help: "hosts, @group or tag:NAME", variadic: true, completion: .host)
            ],
            options: MoveOptions.self,
            run: move),
    ]

    // MARK: list / show

    static func list(_ call: Call<ListOptions>, _ context: AppContext) throws -> Int32 {
        let reachable = call[\.reachable]
        if call[\.timeout] != nil, !reachable {
            throw ShelfError(.usage, "--timeout needs --reachable", hint: "sshelf list --reachable --timeout SECONDS")
        }
        let timeout = call[\.timeout] ?? Reachability.timeoutSeconds
        if reachable, call[\.names] {
            throw ShelfError(
                .usage, "--reachable cannot be used with --names", hint: "use --reachable alone or with --json")
        }
        // @group and tag:NAME pick hosts as `run` targets do; the other words are the search.
        // (TargetWord, the one reading of targets: `@cafe` is the group cafe, whatever it looks like.)
        var groupPaths = call[\.group].map { [$0] } ?? []
        var tags: [String] = []
        var words: [String] = []
        for word in call.arguments {
            switch TargetWord(word) {
            case .group(let path) where !path.isEmpty: groupPaths.append(path)
            case .tag(let tag) where !tag.isEmpty: tags.append(tag)
            default: words.append(word)
            }
        }
        let listing = try HostListing.find(
            HostListing.filter(words), groupPaths: groupPaths, tags: tags, store: try context.store())
        let probed = reachable ? ReachableListing.probe(listing, timeout: timeout) : nil
        if call[\.json] {
            context.print(try HostListing.json(listing, reachable: probed))
            return 0
        }
        if call[\.names] {
            // Shared names count over every host, not only the ones listed: NAME alone must find exactly one.
            let table = listing.table
            var sharing: [String: Int] = [:]
            for row in 0..<table.count { sharing[ModelCheck.sameNameKey(table.name(row)), default: 0] += 1 }
            context.output(
                listing.rows.map { row in
                    let name = table.name(Int(row))
                    let shared = (sharing[ModelCheck.sameNameKey(name)] ?? 0) > 1
                    return Display.safe(shared ? "\(name)@\(Display.shortID(table.id(Int(row))))" : name) + "\n"
                }.joined())
            return 0
        }
        if listing.rows.isEmpty {
            context.errorOutput(
                call.arguments.isEmpty && call[\.group] == nil
                    ? "no hosts yet; add one with 'sshelf add NAME [USER@]HOST' or 'sshelf import ssh-config'\n"
                    : "no host matches\n")
            return 0
        }
        context.output(HostListing.text(listing, reachable: probed?.map(\.words)))
        return 0
    }

    static func show(_ call: Call<ShowOptions>, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        return try store.read { store in
            let host = try Resolve.host(call.arguments[0], in: store)
            let tree = GroupTree(try store.groups())
            let rules = try store.forwardRules(hostID: host.id)
            let identity = try host.identityID.flatMap { id in try store.identities().first { $0.id == id } }
            let jumps = try host.jumpHostIDs.map { id in
                try store.host(id: id)?.name ?? "(missing \(Display.shortID(id)))"
            }
            if call[\.json] {
                var view = HostJSON(host: host, groupPath: tree.path(of: host.groupID))
                view.forwards = rules
                view.identityName = identity?.name
                context.print(try JSONOutput.encode(view))
                return 0
            }
            var lines: [(String, String)] = [
                ("name", host.name)
            ]
            if !host.aliases.isEmpty { lines.append(("aliases", host.aliases.joined(separator: ", "))) }
            let defaults = try store.optionDefaults()
            let applied = OptionDefaults.applied(defaults, to: host)
            let fromPatterns = applied.from.map { "\($0.field) from Host \($0.pattern)" }.joined(separator: ", ")
            lines += [
                ("id", host.id.uuidString.lowercased()),
                ("destination", applied.host.destination + (fromPatterns.isEmpty ? "" : "  (\(fromPatterns))")),
                ("group", tree.path(of: host.groupID).isEmpty ? "(none)" : tree.path(of: host.groupID)),
                ("tags", host.tags.isEmpty ? "(none)" : host.tags.joined(separator: ", ")),
                ("auth", host.authMethod.rawValue),
                (
                    "identity",
                    identity.map { identity in
                        // Where the private key lives, wherever it is: a key moved into the vault says so.
                        var places: [String] = []
                        if let ref = identity.privateKeyRef { places.append("key in the vault as \(ref.rawValue)") }
                        if !identity.keyFile.isEmpty { places.append("file \(identity.keyFile)") }
                        if places.isEmpty { places.append("no private key stored (the agent's)") }
                        return "\(identity.name) (\(identity.keyType.rawValue)), " + places.joined(separator: ", ")
                    } ?? "(none)"
                ),
                (
                    "password",
                    host.passwordRef.map { "in the vault as \($0.rawValue)" } ?? "(none stored; asked when needed)"
                ),
                (
                    "jump",
                    jumps.isEmpty
                        ? (host.unresolvedJump.isEmpty ? "(none)" : "\(host.unresolvedJump) (not a known host)")
                        : jumps.joined(separator: " -> ")
                ),
                (
                    "host key",
                    host.pinnedHostKey.map { "\($0.type) \(Fingerprint.of($0) ?? "(unreadable key)") pinned" }
                        ?? "(not pinned)"
                ),
                ("last connected", Display.relative(host.lastConnectedAt)),
                ("record", recordWords(host, tree: tree)),
            ]
            if let why = PostQuantumWords.required(host, groups: tree.groups) {
                lines.append(("post-quantum", why))
            }
            if let kex = try store.setting(KeyExchange.settingKey(host.id)) {
                lines.append(("key exchange", KeyExchange.describe(kex) + " (its last session from this device)"))
            }
            if let certificate = try store.setting(HostCertificateNote.settingKey(host.id)) {
                lines.append(("host cert", "key vouched for by \(certificate) (its last session from this device)"))
            }
            var out = lines.map { "\($0.0.padded(to: 15))\(Display.safe($0.1))\n" }.joined()
            // Notes may be several lines: each on its own, under the first (a line break is text here, not a `?`).
            let notes = host.notes.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
                .map { Display.safe(String($0)) }
            if !host.notes.isEmpty {
                let indent = String(repeating: " ", count: 15)
                out += "notes" + indent.dropFirst(5) + notes.joined(separator: "\n" + indent) + "\n"
            }
            out += OptionListing.text(
                host: host, defaults: defaults, refused: refusedOptions(host, defaults, context))
            if !rules.isEmpty {
                out += "forwards:\n"
                for rule in rules {
                    out += "  \(Display.shortID(rule.id))  -\(rule.spec.flag) \(rule.spec)"
                    out += rule.enabled ? "" : "  (disabled)"
                    out += rule.autostart ? "  autostart" : ""
                    out += rule.name.isEmpty ? "\n" : "  \(Display.safe(rule.name))\n"
                }
            }
            context.output(out)
            return 0
        }
    }

    /// `on`, `off (as group prod)`…: the setting that applies, and where it comes from when not the host's own.
    static func recordWords(_ host: ShelfCore.Host, tree: GroupTree) -> String {
        let effective = RecordSetting.effective(host: host, groups: tree.groups)
        if host.record != nil { return effective.rawValue }
        var next = host.groupID
        while let id = next, let group = tree.groups[id] {
            if group.record != nil { return "\(effective.rawValue) (as group \(tree.path(of: id)))" }
            next = group.parentID
        }
        return "\(effective.rawValue) (the default)"
    }

    // MARK: add / edit

    static func add(_ call: Call<AddOptions>, _ context: AppContext) throws -> Int32 {
        let destination = try call.arguments.count > 1 ? DestinationWord.parse(call.arguments[1]) : nil
        if let destination {
            let twice = [
                ("host", call[\.fields.host] != nil), ("user", destination.user != nil && call[\.fields.user] != nil),
                ("port", destination.port != nil && call[\.fields.port] != nil),
            ].filter { $0.1 }.map { "--" + $0.0 }
            if !twice.isEmpty {
                throw ShelfError(
                    .usage,
                    "add: \(twice.joined(separator: " and ")) \(twice.count == 1 ? "repeats" : "repeat") what "
                        + "'\(Display.safe(call.arguments[1]))' says",
                    hint: "give the address once: as DESTINATION, or with --host, --user and --port")
            }
        } else if call[\.fields.host] == nil {
            throw ShelfError(
                .usage, "add: give the address (DESTINATION, or --host)",
                hint: "sshelf add NAME [USER@]HOST[:PORT], or sshelf add NAME --host HOST")
        }
        let saved = try context.store().write { store in
            var host = ShelfCore.Host(name: call.arguments[0])
            if let destination {
                host.hostname = destination.hostname
                if let user = destination.user { host.user = user }
                if let port = destination.port { host.port = port }
            }
            try checkedOptions(call)
            try apply(call, to: &host, store: store)
            return try HostOperations.save(
                host, groupPath: call[\.fields.group], allowDuplicateName: call[\.allowDuplicate], in: store)
        }
        context.print("added \(Display.safe(saved.host.name)) (\(Display.safe(saved.host.destination)))")
        return 0
    }

    /// Options of `edit` that name or address one host, given: refused when the targets are several hosts.
    static func oneHostOptions(_ call: Call<EditOptions>) -> [String] {
        [
            (call.spec(\.rename), call[\.rename] != nil), (call.spec(\.fields.host), call[\.fields.host] != nil),
            (call.spec(\.fields.alias), !call[\.fields.alias].isEmpty),
            (call.spec(\.removeAlias), !call[\.removeAlias].isEmpty),
        ].filter(\.1).map(\.0.name)
    }

    static func edit(_ call: Call<EditOptions>, _ context: AppContext) throws -> Int32 {
        let saved = try context.store().write { store in
            let hosts = try FleetTargets.hosts(FleetTargets.resolve(call.arguments, searches: false, in: store))
            if hosts.count > 1, let option = oneHostOptions(call).first {
                throw ShelfError(
                    .usage,
                    "edit: --\(option) is for one host, and \(call.arguments.map(Display.safe).joined(separator: " ")) "
                        + "names \(hosts.count)",
                    hint: "give --\(option) with one host's name")
            }
            try checkedOptions(call)
            return try hosts.map { try edit($0, call, in: store) }
        }
        context.print(
            saved.map { "updated \(Display.safe($0.host.name)) (\(Display.safe($0.host.destination)))" }
                .joined(separator: "\n"))
        return 0
    }

    /// The typed --option lines, checked (by sshelf's rules and the installed ssh) once for every host they go to.
    static func checkedOptions(_ call: Call<some HostChange>) throws { try OptionInput.check(call[\.fields.option]) }

    /// One host of `edit`'s targets, changed by the options given and saved.
    static func edit(_ found: ShelfCore.Host, _ call: Call<EditOptions>, in store: Store) throws
        -> HostOperations.Saved
    {
        var host = found
        if let name = call[\.rename] {
            // Renaming to one of its own aliases makes that alias the name.
            host.aliases.removeAll { $0.caseInsensitiveASCIIEquals(name) }
            host.name = name
        }
        try apply(call, to: &host, removingOptions: call[\.removeOption], store: store)
        let untag = Set(call[\.untag])
        host.tags.removeAll { untag.contains($0) }
        for alias in call[\.removeAlias] {
            guard host.aliases.contains(where: { $0.caseInsensitiveASCIIEquals(alias) }) else {
                throw ShelfError(
                    .invalid, "'\(Display.safe(host.name))' has no alias '\(Display.safe(alias))'",
                    hint: host.aliases.isEmpty
                        ? "it has no aliases"
                        : "its aliases are: \(host.aliases.map(Display.safe).joined(separator: ", "))")
            }
            host.aliases.removeAll { $0.caseInsensitiveASCIIEquals(alias) }
        }
        return try HostOperations.save(
            host, groupPath: call[\.fields.group], allowDuplicateName: call[\.allowDuplicate], in: store)
    }

    /// The host's kept lines (its own and its matching defaults') the installed ssh refuses, with its words: one
    /// `ssh -G` run, only when there are lines to show it.
    static func refusedOptions(_ host: ShelfCore.Host, _ defaults: [OptionDefaults], _ context: AppContext)
        -> [String: String]
    {
        let lists = [host.options] + defaults.filter { $0.matches(host.name) }.map(\.options)
        guard lists.contains(where: { !$0.isEmpty }),
            (try? PrivateFiles.ensureDirectory(context.locations.configDirectory)) != nil
        else { return [:] }
        return RefusedOptions.refused(lists, scratch: context.locations.configDirectory)
    }

    /// Applies the shared host options (all but --group, which the save applies); only options that were given
    /// change anything.
    static func apply(
        _ call: Call<some HostChange>, to host: inout ShelfCore.Host, removingOptions removed: [String] = [],
        store: Store
    ) throws {
        if let hostname = call[\.fields.host] {
            if let misplaced = Validation.misplacedInHostname(hostname) {
                throw ShelfError(
                    .invalid, "--host '\(Display.safe(hostname))' holds \(misplaced)",
                    hint: "give each part its option (--user, --port)"
                        + (call.command.name == "add"
                            ? ", or the address as one word: sshelf add NAME \(ShellWord.quote(Display.safe(hostname)))"
                            : ""))
            }
            host.hostname = hostname
        }
        if let user = call[\.fields.user] { host.user = user }
        if let port = call[\.fields.port] { host.port = port }
        for tag in call[\.fields.tag] where !host.tags.contains(tag) { host.tags.append(tag) }
        for alias in call[\.fields.alias] where !host.answers(to: alias) { host.aliases.append(alias) }
        if let auth = call[\.fields.auth] { host.authMethod = auth }
        if let name = call[\.fields.identity] {
            host.identityID = name.isEmpty ? nil : try Resolve.identity(name, in: store).id
        }
        if let jump = call[\.fields.jump] {
            let names = jump.split(separator: ",").map { $0.trimmingSpaces() }.filter { !$0.isEmpty }
            host.jumpHostIDs = try names.map { try Resolve.host($0, in: store).id }
            host.unresolvedJump = ""
        }
        if let notes = call[\.fields.notes] { host.notes = notes }
        if let pq = call[\.fields.pq] { host.pq = pq }
        if let record = call[\.fields.record] { host.record = record.setting }
        let options = call[\.fields.option]
        if !options.isEmpty || !removed.isEmpty {
            // The typed lines were shown to ssh once, before the first host (`checkedOptions`).
            host.options = try OptionInput.edited(
                host.options, setting: options, removing: removed, owner: host.name)
        }
    }

    // MARK: rm / mv

    static func remove(_ call: Call<RemoveOptions>, _ context: AppContext) throws -> Int32 {
        let deleted = try context.store().write { store in
            let ids = try FleetTargets.hosts(FleetTargets.resolve(call.arguments, searches: false, in: store))
                .map(\.id)
            return try HostOperations.delete(ids, refuseIfJumpedThrough: !call[\.force], in: store)
        }
        context.print(deleted.map(\.summary).joined(separator: "\n"))
        return 0
    }

    static func move(_ call: Call<MoveOptions>, _ context: AppContext) throws -> Int32 {
        guard let path = call[\.group] else {
            throw ShelfError(.usage, "mv: --group is required", hint: ArgumentParser.usageHint(call.command))
        }
        let (saved, shownPath) = try context.store().write { store in
            let hosts = try FleetTargets.hosts(FleetTargets.resolve(call.arguments, searches: false, in: store))
            let saved = try hosts.map { try HostOperations.save($0, groupPath: path, in: store) }
            return (saved, GroupTree(try store.groups()).path(of: saved.first?.host.groupID))
        }
        let place = shownPath.isEmpty ? "the top level" : Display.safe(shownPath)
        context.print(saved.map { "moved \(Display.safe($0.host.name)) to \(place)" }.joined(separator: "\n"))
        return 0
    }
}

/// A host as `list --json` and `show --json` print it: the record plus what a script would otherwise join.
struct HostJSON: Encodable {
    var host: ShelfCore.Host
    var groupPath: String
    var identityName: String? = nil
    var forwards: [PortForwardRule]? = nil
    var reachable: ReachableListing.Probed? = nil

    func encode(to encoder: Encoder) throws {
        try host.encode(to: encoder)
        var container = encoder.container(keyedBy: AnyCodingKey.self)
        try container.encode(groupPath, forKey: AnyCodingKey("groupPath"))
        if let identityName { try container.encode(identityName, forKey: AnyCodingKey("identityName")) }
        if let forwards { try container.encode(forwards, forKey: AnyCodingKey("forwards")) }
        if let reachable { try container.encode(reachable, forKey: AnyCodingKey("reachable")) }
    }
}
