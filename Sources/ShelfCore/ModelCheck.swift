// ModelCheck: problems that span records — group and jump cycles, references to records that are gone, names two
// hosts share. Such records are kept (another device may still send the missing half) and reported, never dropped;
// each report names hosts as commands take them (NAME, or NAME@ID when the name is shared) and, where a command
// fixes it, says which.
import FoundationEssentials

public struct ModelProblem: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        case groupCycle, missingParent, jumpCycle, missingJumpHost, orphanForward,
            missingIdentity, missingGroup, invalidField, duplicateName, notWritable, bridgeSettings, forwardClash,
            bridgeDisagrees, optionRefused, userConfigChanged
    }
    public var kind: Kind
    public var recordID: UUID
    public var message: String
    /// The command that repairs it, when there is one.
    public var fix: String? = nil
    public var description: String { message }

    public init(kind: Kind, recordID: UUID, message: String, fix: String? = nil) {
        self.kind = kind
        self.recordID = recordID
        self.message = message
        self.fix = fix
    }
}

public enum ModelCheck {
    /// The chain of ancestors of a group, nearest first; stops (and reports) at a cycle or a missing parent.
    public static func ancestors(of groupID: UUID, in groups: [UUID: HostGroup]) -> (chain: [HostGroup], cycle: Bool) {
        var chain: [HostGroup] = []
        var seen: Set<UUID> = [groupID]
        var next = groups[groupID]?.parentID
        while let id = next, let group = groups[id] {
            if !seen.insert(id).inserted { return (chain, true) }
            chain.append(group)
            next = group.parentID
        }
        return (chain, false)
    }

    /// Whether making `parentID` the parent of `groupID` would create a cycle.
    public static func wouldCycle(group groupID: UUID, parent parentID: UUID?, in groups: [UUID: HostGroup]) -> Bool {
        var next = parentID
        var seen: Set<UUID> = []
        while let id = next {
            if id == groupID || !seen.insert(id).inserted { return true }
            next = groups[id]?.parentID
        }
        return false
    }

    /// Follows jump chains depth-first; returns the path that loops back, if any.
    public static func jumpCycle(from hostID: UUID, in hosts: [UUID: Host]) -> [UUID]? {
        var path: [UUID] = []
        var onPath: Set<UUID> = []
        var done: Set<UUID> = []
        func visit(_ id: UUID) -> Bool {
            if onPath.contains(id) { path.append(id); return true }
            if done.contains(id) { return false }
            onPath.insert(id)
            path.append(id)
            for next in hosts[id]?.jumpHostIDs ?? [] where visit(next) { return true }
            path.removeLast()
            onPath.remove(id)
            done.insert(id)
            return false
        }
        return visit(hostID) ? path : nil
    }

    public static func problems(groups: [HostGroup], hosts: [Host], identities: [Identity], rules: [PortForwardRule])
        -> [ModelProblem]
    {
        let groupsByID = Dictionary(groups.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let hostsByID = Dictionary(hosts.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let identityIDs = Set(identities.map(\.id))
        var found: [ModelProblem] = []
        for group in groups {
            for error in Validation.problems(group) {
                found.append(
                    ModelProblem(kind: .invalidField, recordID: group.id, message: "group '\(group.name)': \(error)"))
            }
            if ancestors(of: group.id, in: groupsByID).cycle {
                found.append(
                    ModelProblem(
                        kind: .groupCycle, recordID: group.id,
                        message: "group '\(group.name)' is inside itself (its parents form a cycle)"))
            } else if let parent = group.parentID, groupsByID[parent] == nil {
                found.append(
                    ModelProblem(
                        kind: .missingParent, recordID: group.id,
                        message:
                            "group '\(group.name)' has a parent that no longer exists; it is shown at the top level"))
            }
        }
        // Hosts are named as a command would take them: a shared name needs its id (NAME@ID).
        var sharing: [String: [Host]] = [:]
        for host in hosts { sharing[sameNameKey(host.name), default: []].append(host) }
        func label(_ host: Host) -> String {
            (sharing[sameNameKey(host.name)]?.count ?? 0) > 1 ? "\(host.name)@\(shortID(host.id))" : host.name
        }
        for host in hosts {
            let name = label(host)
            for error in Validation.problems(host) {
                found.append(ModelProblem(kind: .invalidField, recordID: host.id, message: "host '\(name)': \(error)"))
            }
            if let cycle = jumpCycle(from: host.id, in: hostsByID) {
                let names = cycle.map { hostsByID[$0].map(label) ?? shortID($0) }
                found.append(
                    ModelProblem(
                        kind: .jumpCycle, recordID: host.id,
                        message: "host '\(name)': jump chain loops (\(names.joined(separator: " -> ")))",
                        fix: "sshelf edit \(ShellWord.quote(name)) --jump HOST[,HOST...] (or --jump '' for none)"))
            }
            let missing = host.jumpHostIDs.filter { hostsByID[$0] == nil }
            if !missing.isEmpty {
                let which =
                    missing.count == 1
                    ? "a jump host that no longer exists" : "\(missing.count) jump hosts that no longer exist"
                found.append(
                    ModelProblem(
                        kind: .missingJumpHost, recordID: host.id,
                        message: "host '\(name)' goes through \(which) (deleted here or on another device); "
                            + "it cannot connect",
                        fix: "sshelf edit \(ShellWord.quote(name)) --jump HOST[,HOST...] (or --jump '' for none)"))
            }
            if let identity = host.identityID, !identityIDs.contains(identity) {
                found.append(
                    ModelProblem(
                        kind: .missingIdentity, recordID: host.id,
                        message: "host '\(name)': its identity no longer exists",
                        fix: "sshelf edit \(ShellWord.quote(name)) --identity NAME (or --identity '' for none)"))
            }
            if let group = host.groupID, groupsByID[group] == nil {
                found.append(
                    ModelProblem(
                        kind: .missingGroup, recordID: host.id,
                        message: "host '\(name)': its group no longer exists; it is shown at the top level",
                        fix: "sshelf mv \(ShellWord.quote(name)) --group PATH"))
            }
        }
        // What export and the ssh_config bridge must leave out (the bridge says why in a comment; here the user
        // hears it): only for hosts whose fields are valid, the others are reported above already.
        let invalid = Set(found.filter { $0.kind == .invalidField }.map(\.recordID))
        let input = SSHConfigEmitter.Input(hosts: hosts, identities: identities, rules: rules, groups: groups)
        let unwritable = SSHConfigEmitter.unwritableHosts(input)
        for (id, reason) in unwritable.sorted(by: { $0.key.uuidString < $1.key.uuidString }) where !invalid.contains(id)
        {
            guard let host = hostsByID[id] else { continue }
            found.append(
                ModelProblem(
                    kind: .notWritable, recordID: id,
                    message: "host '\(label(host))' cannot be written to ssh_config, so the bridge and export leave it "
                        + "out: \(reason)",
                    fix: "sshelf edit \(ShellWord.quote(label(host))) (change the value named above)"))
        }
        for (_, shared) in sharing.sorted(by: { $0.key < $1.key }) where shared.count > 1 {
            let labels = shared.map { "\(label($0)) (\($0.destination))" }.joined(separator: ", ")
            found.append(
                ModelProblem(
                    kind: .duplicateName, recordID: shared[0].id,
                    message: "\(shared.count) hosts are named '\(shared[0].name)': \(labels); commands need NAME@ID to "
                        + "tell them apart",
                    fix: "sshelf edit \(ShellWord.quote(label(shared[shared.count - 1]))) --rename NEWNAME"))
        }
        found += sharedAliases(hosts, label: label)
        found += forwardClashes(rules, hostsByID: hostsByID, label: label)
        for rule in rules {
            let ruleLabel = rule.name.isEmpty ? "-\(rule.spec.flag) \(rule.spec)" : rule.name
            for error in Validation.problems(rule) {
                found.append(
                    ModelProblem(kind: .invalidField, recordID: rule.id, message: "forward \(ruleLabel): \(error)"))
            }
            if rule.hostID.flatMap({ hostsByID[$0] }) == nil {
                found.append(
                    ModelProblem(
                        kind: .orphanForward, recordID: rule.id,
                        message: "forward \(ruleLabel): its host was deleted; the rule is kept until you remove it",
                        fix: "sshelf forward rm \(shortID(rule.id))"))
            }
        }
        return found
    }

    /// An alias that is another host's name or alias (sync can bring two such hosts together): commands take the
    /// name first, so the alias no longer reaches its host.
    static func sharedAliases(_ hosts: [Host], label: (Host) -> String) -> [ModelProblem] {
        var owner: [String: Host] = [:]
        for host in hosts { owner[sameNameKey(host.name)] = owner[sameNameKey(host.name)] ?? host }
        var found: [ModelProblem] = []
        for host in hosts {
            for alias in host.aliases {
                let key = sameNameKey(alias)
                if let other = owner[key], other.id != host.id {
                    let what = sameNameKey(other.name) == key ? "the name" : "an alias"
                    found.append(
                        ModelProblem(
                            kind: .duplicateName, recordID: host.id,
                            message: "host '\(label(host))': its alias '\(alias)' is also \(what) of host "
                                + "'\(label(other))'; the alias does not reach it",
                            fix: "sshelf edit \(ShellWord.quote(label(host))) --remove-alias \(ShellWord.quote(alias))")
                    )
                } else {
                    owner[key] = host
                }
            }
        }
        return found
    }

    /// Enabled local and dynamic forwards (they listen on this device) of which two bind one port on one address —
    /// the same address, or a wildcard one (`0.0.0.0`, `*`, `::`) that takes every address: whichever starts second
    /// fails with "Address already in use".
    static func forwardClashes(_ rules: [PortForwardRule], hostsByID: [UUID: Host], label: (Host) -> String)
        -> [ModelProblem]
    {
        let listening = rules.filter { $0.enabled && ($0.kind == .local || $0.kind == .dynamic) && $0.bindPort > 0 }
        let byPort = Dictionary(grouping: listening, by: \.bindPort)
        var found: [ModelProblem] = []
        for port in byPort.keys.sorted() {
            let sharing = byPort[port] ?? []
            guard sharing.count > 1 else { continue }
            for (i, rule) in sharing.enumerated() {
                guard let first = sharing[..<i].first(where: { bindsTogether($0.bindAddress, rule.bindAddress) }) else {
                    continue
                }
                func owner(_ rule: PortForwardRule) -> String {
                    rule.hostID.flatMap { hostsByID[$0] }.map { "host '\(label($0))'" } ?? "a deleted host"
                }
                found.append(
                    ModelProblem(
                        kind: .forwardClash, recordID: rule.id,
                        message: "forward -\(rule.spec.flag) \(rule.spec) of \(owner(rule)) binds "
                            + "\(rule.bindAddress):\(port), as does -\(first.spec.flag) \(first.spec) of "
                            + "\(owner(first)); the second to start fails (address already in use)",
                        fix: "sshelf forward edit \(shortID(rule.id)) --\(rule.kind == .local ? "local" : "dynamic") "
                            + "NEWPORT\(rule.kind == .local ? ":\(rule.targetHost):\(rule.targetPort)" : "") (or "
                            + "sshelf forward rm \(shortID(rule.id)) when it is the same forward)"))
            }
        }
        return found
    }

    static func bindsTogether(_ a: String, _ b: String) -> Bool {
        let wildcard: Set<String> = ["", "*", "0.0.0.0", "::", "[::]"]
        func normal(_ address: String) -> String { address == "localhost" ? "127.0.0.1" : address.lowercased() }
        return wildcard.contains(a) || wildcard.contains(b) || normal(a) == normal(b)
    }

    /// Names are the same when they differ only in the case of ASCII letters (as the store's unique-name rule and
    /// ssh's Host matching compare them).
    public static func sameNameKey(_ name: String) -> String {
        // Nearly every name has no capital: it is its own key (an import asks for 100,000 of them).
        if !name.utf8.contains(where: { $0 &- 0x41 < 26 }) { return name }
        return String(
            String.UnicodeScalarView(
                name.unicodeScalars.map { scalar in
                    ("A"..."Z").contains(scalar) ? Unicode.Scalar(scalar.value + 32) ?? scalar : scalar
                }))
    }

    /// Ids are shown as their first 8 hex digits (as `Display.shortID`).
    static func shortID(_ id: UUID) -> String { String(id.uuidString.lowercased().prefix(8)) }
}
