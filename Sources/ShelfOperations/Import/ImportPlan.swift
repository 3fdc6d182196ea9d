// ImportPlan: maps resolved ssh_config hosts onto the store — update by name (ignoring case; never a second host of
// a name), identities by key file,
// ProxyJump to known hosts, forwards without duplicates — and counts what changed.
import FoundationEssentials
import ShelfCore
import ShelfStore
import ShelfSystem

/// The plan's work, run by `ConfigImport` (the one import both faces use).
enum ImportPlan {
    /// A warning for each kept line the installed ssh refuses: imported as written (nothing is lost), but the
    /// bridge leaves it out, `check` reports it, and the warning says how to remove it.
    static func refusedWarnings(_ resolved: SSHConfigImport, refused: [String: String]) -> [String] {
        guard !refused.isEmpty else { return [] }
        var warnings: [String] = []
        for host in resolved.hosts {
            for line in host.options {
                guard let why = refused[line], let option = SSHOption(line: line) else { continue }
                warnings.append(
                    "\(host.location): host '\(host.alias)': \(RefusedOptions.words(line, why: why)) (remove it: "
                        + "sshelf edit \(ShellWord.quote(host.alias)) --remove-option \(option.keyword))")
            }
        }
        for block in resolved.defaults {
            for line in block.options {
                guard let why = refused[line], let option = SSHOption(line: line) else { continue }
                warnings.append(
                    "Host \(block.pattern): \(RefusedOptions.words(line, why: why)) (remove it: sshelf ssh-config "
                        + "defaults \(ShellWord.quote(block.pattern)) --remove-option \(option.keyword))")
            }
        }
        return warnings
    }

    /// With `groupByFile` (the imported file's path), a new host from an Included file goes to a group named after
    /// that file (inside `groupPath` when given); the imported file's own hosts go to `groupPath`.
    static func apply(
        _ resolved: SSHConfigImport, groupPath: String?, home: String, leftovers: BridgeLeftovers,
        store: Store, groupByFile mainFile: String? = nil
    ) throws -> ImportSummary {
        // On the other core while the first pass runs: the list order of every name in the file and as many fresh
        // ids, ascending (the ids handed out below).
        let ordering = BackgroundValue {
            (Store.listOrder(resolved.hosts.map(\.alias)), Store.ascendingIDs(resolved.hosts.count))
        }
        var summary = ImportSummary(skipped: resolved.skipped, warnings: resolved.warnings, failures: resolved.failures)
        summary.notes = resolved.notes
        summary.keptAsDefaults = resolved.keptAsDefaults
        let groupsBefore = Set(try store.groups().map(\.id))
        // Which stored groups require post-quantum key exchange (a host in one needs no setting of its own).
        let storedGroups = Dictionary(try store.groups().map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let group = try groupPath.flatMap { try GroupOperations.create($0, in: store) }
        var identities = try store.identities()
        // Whether an IdentityFile is a key copy of the bridge, asked once per path (a file names a few keys for
        // 100,000 hosts).
        var keyCopies: [String: UUID?] = [:]
        func keyCopy(_ file: String) -> UUID? {
            if let known = keyCopies[file] { return known }
            let found = leftovers.keyCopy(file)
            keyCopies[file] = found
            return found
        }
        var annotatedGroups: [String: HostGroup?] = [:]
        /// The group a `#@group:` annotation names (inside `groupPath` when given), made on first use.
        func annotatedGroup(_ entry: ImportedHost) throws -> HostGroup? {
            guard let name = entry.group else { return nil }
            if let known = annotatedGroups[name] { return known }
            // A slash path as sshelf's export writes it (`prod/eu`); a name that is no valid path leaves the host
            // where --group puts it.
            let made = try? GroupOperations.create(
                (groupPath.map { $0.hasSuffix("/") ? $0 : $0 + "/" } ?? "") + name, in: store)
            annotatedGroups[name] = made
            return made
        }
        var fileGroups: [String: HostGroup?] = [:]
        /// The group of the Included file a host was read from (`--group-by-file`), made on first use.
        func fileGroup(_ entry: ImportedHost) throws -> HostGroup? {
            guard let mainFile else { return nil }
            let file = entry.file
            guard file != mainFile else { return nil }
            if let known = fileGroups[file] { return known }
            let name = file.lastPathPart.removingPathExtension
            let made =
                name.isEmpty || name.hasPrefix(".")
                ? nil
                : try GroupOperations.create(
                    (groupPath.map { $0.hasSuffix("/") ? $0 : $0 + "/" } ?? "") + name, in: store)
            fileGroups[file] = made
            return made
        }
        // The Host patterns as they will be after this import: what they give a stored host is not written into it.
        let defaults = mergedDefaults(try store.optionDefaults(), resolved.defaults)
        // Names are compared ignoring case, as ssh matches Host aliases and as the unique-name rule does: an alias
        // updates the host of that name, and never adds a second one.
        var shared: [String: [ShelfCore.Host]] = [:]
        // A stored host's aliases find it too (after the names: a name is never shadowed by another host's alias).
        var aliasOf: [String: ShelfCore.Host] = [:]
        for host in try store.hosts() {
            shared[ModelCheck.sameNameKey(host.name), default: []].append(host)
            for alias in host.aliases {
                aliasOf[ModelCheck.sameNameKey(alias)] = aliasOf[ModelCheck.sameNameKey(alias)] ?? host
            }
        }
        for (key, host) in aliasOf where shared[key] == nil { shared[key] = [host] }
        // Where each name of the file is in `imported` (its first alias), and the stored hosts by their unique names.
        var inFile: [String: Int] = [:]
        inFile.reserveCapacity(resolved.hosts.count)
        // Read once, not once per host: the stored copy of each host (to tell what changed) and its rules.
        var stored: [UUID: ShelfCore.Host] = [:]
        let rulesByHost = Dictionary(grouping: try store.forwardRules(), by: { $0.hostID })
        // Each host to store, as the first pass decides it (its `Host` is made in the second pass).
        var imported: [PlannedHost] = []
        imported.reserveCapacity(resolved.hosts.count)
        // Where each of the file's hosts went in `imported` (-1: skipped).
        var positions = [Int](repeating: -1, count: resolved.hosts.count)
        for (index, entry) in resolved.hosts.enumerated() {
            let key = ModelCheck.sameNameKey(entry.alias)
            let existing: ShelfCore.Host?
            if let hosts = shared[key] {
                guard hosts.count == 1 else {
                    let ids = hosts.map { "\($0.name)@\(Display.shortID($0.id))" }
                    summary.failures.append(
                        "\(entry.location): host '\(entry.alias)' skipped: \(hosts.count) stored hosts have this name "
                            + "(\(ids.joined(separator: ", "))); rename all but one (sshelf edit "
                            + "\(ShellWord.quote(ids[ids.count - 1])) --rename NEWNAME), then import again")
                    continue
                }
                existing = hosts[0]
            } else {
                existing = nil
            }
            if let first = inFile[key] {
                summary.warnings.append(
                    "\(entry.location): host '\(entry.alias)' skipped: same name as "
                        + "'\(resolved.hosts[imported[first].index].alias)' above (names are compared ignoring case)")
                continue
            }
            inFile[key] = imported.count
            positions[index] = imported.count
            if let existing { stored[existing.id] = existing }
            // A new host's id is handed out after this pass (below).
            let groupID = existing == nil ? try annotatedGroup(entry)?.id ?? fileGroup(entry)?.id ?? group?.id : nil
            var host = PlannedHost(index: index, existing: existing, groupID: groupID)
            let name = existing?.name ?? entry.alias
            // The file's aliases join the ones the host has; one that is another host's name or alias stays there.
            for alias in entry.aliases where !host.answers(to: alias, name: name) {
                let aliasKey = ModelCheck.sameNameKey(alias)
                if let owner = shared[aliasKey]?.first, owner.id != existing?.id {
                    summary.warnings.append(
                        "\(entry.location): host '\(entry.alias)': alias '\(alias)' not kept: it names the stored "
                            + "host '\(owner.name)'")
                } else if let first = inFile[aliasKey] {
                    summary.warnings.append(
                        "\(entry.location): host '\(entry.alias)': alias '\(alias)' not kept: it names "
                            + "'\(resolved.hosts[imported[first].index].alias)' above")
                } else {
                    host.aliases.append(alias)
                    inFile[aliasKey] = imported.count
                }
            }
            // Its notes, address, user and port are the file's (PlannedHost.host), but a user or port the host leaves
            // to its Host patterns stays unset when the file says what they give.
            if let existing {
                let given = OptionDefaults.applied(defaults, to: existing).host
                host.userFromPatterns = existing.user.isEmpty && entry.user == given.user
                host.portFromPatterns = existing.port == ShelfCore.Host.defaultPort && entry.port == given.port
            }
            // What the ssh_config bridge writes is never a host's own option (a config that reached the bridge's
            // lines some other way than an Include, which the reader skips).
            let bridgeLines = leftovers.lines(in: entry.options)
            host.options = bridgeLines.isEmpty ? entry.options : entry.options.filter { !bridgeLines.contains($0) }
            // A KexAlgorithms line of post-quantum names only is the pq setting: `pq require` (unless a group of the
            // host requires it already). The line itself goes when it is the list export writes for the setting (the
            // installed ssh's post-quantum ones); a narrower one stays, and export and the bridge write it in place of
            // that list. A file without such a line leaves the setting as it was (an import never weakens it).
            if let index = host.options.firstIndex(where: { KeyExchange.isPostQuantumOnly(line: $0) }) {
                // ssh is asked (once per process) only when a file has such a line.
                let written = OpenSSHKex.postQuantum().joined(separator: ",")
                if SSHOption(line: host.options[index])?.arguments.first == written {
                    host.options.remove(at: index)
                }
                let before = existing ?? ShelfCore.Host(id: ImportPlan.unassigned, name: entry.alias, groupID: groupID)
                if !PostQuantumSetting.required(before, groups: storedGroups) { host.pq = .require }
            }
            if !bridgeLines.isEmpty {
                summary.notes.append(
                    "\(entry.location): host '\(entry.alias)': left out what the ssh_config bridge writes: "
                        + bridgeLines.joined(separator: "; "))
            }
            if let file = entry.identityFiles.first {
                if let original = keyCopy(file), identities.contains(where: { $0.id == original }) {
                    host.identityID = original  // the bridge's copy of a vault key: the identity it was written for
                } else {
                    host.identityID = try identity(
                        for: file, home: home, identities: &identities, summary: &summary,
                        store: store
                    ).id
                }
            }
            imported.append(host)
        }
        // Ids for the new hosts: random, handed out in name order (the list's order) so the store appends each row to
        // every index it has instead of putting it at a random place in each (Store.insert(newHostsInOrder:)). New
        // names are never equal ignoring case, so their order is the one order of their keys.
        let (order, ids) = ordering.value
        var newPositions: [Int] = []
        for index in order where positions[index] >= 0 && imported[positions[index]].isNew {
            newPositions.append(positions[index])
        }
        var rank = [Int](repeating: -1, count: imported.count)
        for (k, position) in newPositions.enumerated() {
            imported[position].id = ids[k]
            rank[position] = k
        }
        // Second pass (jump chains may name hosts defined later in the file): new hosts are finished on the other
        // core, in id order, a few blocks ahead of their inserts; what it says of each is read back below.
        let names = NameTable(entries: resolved.hosts, inFile: inFile, imported: imported, shared: shared)
        var reports = [Report](repeating: Report(), count: newPositions.count)
        try reports.withUnsafeMutableBufferPointer { reports in
            try store.insert(newHostsInOrder: newPositions.count) { k in
                let planned = names.imported[newPositions[k]]
                let entry = names.entries[planned.index]
                let (finished, report) = finish(entry, planned.host(entry, stored: nil), names: names)
                reports[k] = report
                guard var finished else { return nil }
                finished.updatedAt = Date()
                return finished
            }
        }
        var changedHosts: [ShelfCore.Host] = []
        for (position, planned) in imported.enumerated() {
            let index = planned.index, isNew = planned.isNew
            let host = isNew ? nil : planned.host(resolved.hosts[index], stored: stored[planned.id])
            let (finished, report) =
                host.map { finish(resolved.hosts[index], $0, names: names) } ?? (nil, reports[rank[position]])
            if let warning = report.warning { summary.warnings.append(warning) }
            if let note = report.note { summary.notes.append(note) }
            if let failure = report.failure {
                summary.failures.append(failure)
                continue
            }
            let name = host?.name ?? resolved.hosts[index].alias
            var changed = isNew
            if var finished, stored[planned.id].map({ !sameSettings($0, finished) }) ?? true {
                finished.updatedAt = Date()
                changedHosts.append(finished)
                changed = true
            }
            let rules = rulesByHost[planned.id] ?? []
            // A stored host's forward that its Host patterns carry is theirs, not a rule of its own.
            let patternForwards = host.map { OptionDefaults.forwards(defaults, for: $0) } ?? []
            for spec in resolved.hosts[index].forwards
            where !rules.contains(where: { $0.spec == spec }) && !patternForwards.contains(spec) {
                try store.save(
                    PortForwardRule(
                        hostID: planned.id, kind: spec.kind, bindAddress: spec.bindAddress,
                        bindPort: spec.bindPort, targetHost: spec.targetHost,
                        targetPort: spec.targetPort))
                summary.forwardsAdded += 1
                summary.forwardRulesAdded.append("\(name) -\(spec.flag) \(spec)")
                changed = true
            }
            if isNew {
                summary.added.append(name)
            } else if changed {
                summary.updated.append(name)
            } else {
                summary.unchanged += 1
            }
        }
        try store.save(hosts: changedHosts)
        let groups = try store.groups()
        if groups.count != groupsBefore.count {
            let tree = GroupTree(groups)
            summary.groupsAdded = groups.filter { !groupsBefore.contains($0.id) }.map { tree.path(of: $0.id) }.sorted()
        }
        if !resolved.defaults.isEmpty {
            try store.setOptionDefaults(defaults)
        }
        // Freeing what a 100,000-host file made here takes tens of milliseconds: the other core does it.
        Release.elsewhere(
            (
                consume imported, consume names, consume reports, consume changedHosts,
                consume stored, consume shared, consume inFile, consume rank
            ))
        return summary
    }

    /// The second pass's view of every name: the file's hosts (with their ids) and the stored ones, read by both cores.
    struct NameTable: @unchecked Sendable {
        let entries: [ImportedHost]
        let inFile: [String: Int]
        let imported: [PlannedHost]
        let shared: [String: [ShelfCore.Host]]

        /// A name in a jump chain: the host of that name in the file, else the one stored under it (when unique).
        func id(named name: String) -> UUID? {
            let key = ModelCheck.sameNameKey(name)
            if let position = inFile[key] { return imported[position].id }
            guard let hosts = shared[key], hosts.count == 1 else { return nil }
            return hosts[0].id
        }
    }

    /// What the second pass says of one host: a warning (its jump chain kept as text), a failure (it is skipped).
    struct Report {
        var warning: String?
        var failure: String?
        var note: String?
    }

    /// The second pass for one host (only reads, so it runs on either core): its jump chain, from ProxyJump or a
    /// `ProxyCommand ssh -W` naming known hosts (else kept as text, or as the ProxyCommand), and its validation.
    static func finish(_ entry: ImportedHost, _ host: ShelfCore.Host, names: NameTable) -> (ShelfCore.Host?, Report) {
        var host = host
        var warning: String?, note: String?
        if entry.proxyJump.isEmpty, let jumps = entry.proxyCommandJump {
            // `ProxyCommand ssh -W %h:%p HOST`: a jump chain when every host it names is known, else kept as is.
            let ids = jumps.map(names.id(named:))
            if ids.allSatisfy({ $0 != nil }), !ids.contains(host.id) {
                host.jumpHostIDs = ids.compactMap { $0 }
                host.unresolvedJump = ""
                if let index = host.options.firstIndex(where: { SSHOption(line: $0)?.key == "proxycommand" }) {
                    note = ProxyCommandJump.note(
                        alias: entry.alias, location: entry.location, command: host.options[index])
                    host.options.remove(at: index)
                }
            } else {
                host.jumpHostIDs = []
                host.unresolvedJump = ""
                warning =
                    "\(entry.location): host '\(entry.alias)': its ProxyCommand jumps through "
                    + "\(jumps.joined(separator: ",")), not all known hosts; kept as a ProxyCommand"
            }
        } else if entry.proxyJump.isEmpty {
            host.jumpHostIDs = []
            host.unresolvedJump = ""
        } else {
            let ids = entry.proxyJump.map(names.id(named:))
            if ids.allSatisfy({ $0 != nil }), !ids.contains(host.id) {
                host.jumpHostIDs = ids.compactMap { $0 }
                host.unresolvedJump = ""
            } else {
                host.jumpHostIDs = []
                host.unresolvedJump = entry.proxyJump.joined(separator: ",")
                warning =
                    "\(entry.location): host '\(entry.alias)': ProxyJump \(host.unresolvedJump) names no "
                    + "stored host; kept as text"
            }
        }
        let problems = Validation.problems(host)
        guard problems.isEmpty else {
            return (
                nil,
                Report(
                    warning: warning,
                    failure: "\(entry.location): host '\(entry.alias)' skipped: "
                        + "\(problems.map(\.message).joined(separator: "; "))")
            )
        }
        return (host, Report(warning: warning, note: note))
    }

    /// The stored defaults with the imported ones in place: a block of the same pattern is replaced where it stands
    /// (importing again changes nothing), a new one goes after the others, in file order.
    static func mergedDefaults(_ stored: [OptionDefaults], _ imported: [OptionDefaults]) -> [OptionDefaults] {
        // Blocks of one pattern with no other pattern block between them (a Host line reopened after an Include) are
        // one block; apart, they stay apart, in file order: ssh reads `Host *` at the top and at the bottom of a file
        // before and after the patterns between them (first value wins), and so must the bridge and export.
        var blocks: [OptionDefaults] = []
        for block in imported {
            if let last = blocks.last, last.header == block.header {
                blocks[blocks.count - 1].options += block.options
            } else {
                blocks.append(block)
            }
        }
        // The file's n-th block of a pattern replaces the stored n-th block of it (a re-import updates, never adds).
        var merged = stored
        var seen: [String: Int] = [:]
        for block in blocks {
            let n = seen[block.header, default: 0]
            seen[block.header] = n + 1
            let same = merged.indices.filter { merged[$0].header == block.header }
            if n < same.count { merged[same[n]].options = block.options } else { merged.append(block) }
        }
        return merged
    }

    /// A new host's id until the first pass is over (never stored: every new host gets its own before the second).
    static let unassigned = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    static func sameSettings(_ a: ShelfCore.Host, _ b: ShelfCore.Host) -> Bool {
        a.hostname == b.hostname && a.user == b.user && a.port == b.port && a.identityID == b.identityID
            && a.jumpHostIDs == b.jumpHostIDs && a.unresolvedJump == b.unresolvedJump && a.options == b.options
            && a.aliases == b.aliases && a.notes == b.notes && a.pq == b.pq
    }

    /// The identity for an IdentityFile path, created on first sight. Only the path and the public key (from
    /// the `.pub` beside it) are recorded; the private key stays where it is until `sshelf identity import`.
    static func identity(
        for file: String, home: String, identities: inout [Identity], summary: inout ImportSummary,
        store: Store
    ) throws -> Identity {
        if let known = identities.first(where: { $0.keyFile == file }) { return known }
        let expanded = SSHConfigReader.expandTilde(file, home: home)
        var identity = Identity(
            name: uniqueName(file.lastPathPart, among: identities),
            keyType: guessKeyType(file), keyFile: file)
        if let publicKey = (try? RegularFile.read(expanded + ".pub", limit: 64 * 1024)).map({
            String(decoding: $0, as: UTF8.self)
        }),
            let line = publicKey.split(separator: "\n").first.map(String.init), line.utf8.count < 16 * 1024,
            Validation.controlCharacterProblem(line) == nil
        {
            identity.publicKey = line.trimmingSpaces()
            if let algorithm = line.split(separator: " ").first {
                identity.keyType = KeyType(openSSHAlgorithm: String(algorithm))
            }
        }
        // One key, one identity: a file holding a key an identity has already (in the vault, or under another path).
        if let holder = IdentityKeys.holder(of: identity.publicKey, among: identities) { return holder }
        try store.save(identity)
        identities.append(identity)
        summary.identitiesAdded += 1
        return identity
    }

    static func uniqueName(_ base: String, among identities: [Identity]) -> String {
        var name = base.isEmpty ? "key" : base
        var n = 2
        while identities.contains(where: { $0.name == name }) {
            name = "\(base)-\(n)"
            n += 1
        }
        return name
    }

    static func guessKeyType(_ file: String) -> KeyType {
        let name = file.lastPathPart.lowercased()
        if name.contains("ed25519") { return .ed25519 }
        if name.contains("ecdsa") { return .ecdsa }
        if name.contains("rsa") { return .rsa }
        return .other("unknown")
    }
}
