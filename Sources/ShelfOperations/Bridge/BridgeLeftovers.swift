// BridgeLeftovers: what the ssh_config bridge writes into its host blocks for OpenSSH's sake — IdentityAgent (the
// sshelf agent), UserKnownHostsFile (its pins) with GlobalKnownHostsFile /dev/null, StrictHostKeyChecking yes,
// UpdateHostKeys no and HostKeyAlias sshelf-<id> (the name its pin is kept under), IdentityFile of its public key
// copies — and that a host record must never hold: an import that read the bridge took them in as host options (and
// the key copies as identities), and they synced to devices where those paths mean nothing. Import leaves them out,
// `check` finds a store that holds them, `check --fix` takes them out and links each host back to the vault identity
// its key copy was written for.
import FoundationEssentials
import ShelfCore
import ShelfStore

public struct BridgeLeftovers: Sendable {
    let locations: DataLocations

    public init(locations: DataLocations) { self.locations = locations }

    /// The bridge's files, as this device names them or as another device's bridge did (a synced copy).
    func isAgentSocket(_ path: String) -> Bool {
        path == locations.agentSocket || (path.hasSuffix("/agent/socket") && path.contains("sshelf"))
    }

    func isPins(_ path: String) -> Bool {
        path == locations.bridgePins || (path.hasSuffix("/ssh_known_hosts") && path.contains("sshelf"))
    }

    /// The identity a public key file of the bridge was written for (`keys/<identity-id>.pub`), or nil.
    public func keyCopy(_ path: String) -> UUID? {
        let directory = path.parentPath
        guard directory == locations.bridgeKeys || (directory.hasSuffix("/keys") && path.contains("sshelf")) else {
            return nil
        }
        let name = path.lastPathPart
        guard name.hasSuffix(".pub") else { return nil }
        return UUID(uuidString: String(name.dropLast(4)))
    }

    /// The bridge's `HostKeyAlias sshelf-<id>` (SSHConfigEmitter.pinAlias), which names a pin in its pins file.
    static func isPinAlias(_ line: String) -> Bool {
        guard let lexed = try? SSHConfigLexer.lex(Substring(line), file: "", number: 0), lexed.key == "hostkeyalias",
            lexed.arguments.count == 1, let value = lexed.arguments.first, value.hasPrefix("sshelf-")
        else { return false }
        return UUID(uuidString: String(value.dropFirst("sshelf-".count))) != nil
    }

    /// The lines of `options` the bridge wrote, not the user: its agent, its pins file and key copies, and the three
    /// pin settings when its pins file is among them (alone, they may well be the user's own).
    public func lines(in options: [String]) -> [String] {
        var found: [String] = []
        var pinned = false
        for line in options {
            guard let lexed = try? SSHConfigLexer.lex(Substring(line), file: "", number: 0),
                let value = lexed.arguments.first
            else { continue }
            switch lexed.key {
            case "identityagent" where isAgentSocket(value): found.append(line)
            case "identityfile" where keyCopy(value) != nil: found.append(line)
            case "userknownhostsfile" where isPins(value):
                found.append(line)
                pinned = true
            default: break
            }
        }
        if pinned {
            let pinSettings: Set<String> = [
                "globalknownhostsfile /dev/null", "stricthostkeychecking yes", "updatehostkeys no",
            ]
            for line in options where pinSettings.contains(Self.normalized(line)) || Self.isPinAlias(line) {
                found.append(line)
            }
        }
        return found
    }

    static func normalized(_ line: String) -> String {
        guard let lexed = try? SSHConfigLexer.lex(Substring(line), file: "", number: 0) else { return "" }
        return ([lexed.key] + lexed.arguments.map { $0.lowercased() }).joined(separator: " ")
    }

    /// What `check` reports: each host holding the bridge's settings, each identity that is a copy of a bridge key.
    public func problems(hosts: [ShelfCore.Host], identities: [Identity]) -> [ModelProblem] {
        var found: [ModelProblem] = []
        let names = Dictionary(identities.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        for host in hosts {
            let lines = lines(in: host.options)
            guard !lines.isEmpty else { continue }
            found.append(
                ModelProblem(
                    kind: .bridgeSettings, recordID: host.id,
                    message:
                        "host '\(host.name)' holds settings the ssh_config bridge writes, taken in by an import of "
                        + "the bridge: \(lines.joined(separator: "; "))",
                    fix: "sshelf check --fix"))
        }
        for identity in identities {
            guard let original = keyCopy(identity.keyFile), original != identity.id else { continue }
            let users = hosts.filter { $0.identityID == identity.id }.count
            let of = names[original].map { "identity '\($0)'" } ?? "an identity that no longer exists"
            found.append(
                ModelProblem(
                    kind: .bridgeSettings, recordID: identity.id,
                    message:
                        "identity '\(identity.name)' is a copy of the public key file the ssh_config bridge wrote for "
                        + "\(of) (\(users) host\(users == 1 ? "" : "s") use it)",
                    fix: names[original] == nil ? nil : "sshelf check --fix"))
        }
        return found
    }

    /// What `check --fix` did.
    public struct Fixed: Sendable {
        public var hosts = 0
        public var lines = 0
        public var identitiesRemoved = 0
    }

    /// Takes the bridge's settings out of every host, points hosts that use a key copy at the identity it was written
    /// for, and removes copies no host uses any more (they hold no vault item: nothing else goes with them).
    public func fix(_ store: Store) throws -> Fixed {
        try store.write { store in
            var fixed = Fixed()
            let identities = try store.identities()
            let known = Set(identities.map(\.id))
            let copies = Dictionary(
                identities.compactMap { identity in
                    keyCopy(identity.keyFile).flatMap {
                        known.contains($0) && $0 != identity.id ? (identity.id, $0) : nil
                    }
                }, uniquingKeysWith: { a, _ in a })
            var stillUsed: Set<UUID> = []
            for var host in try store.hosts() {
                let lines = lines(in: host.options)
                var changed = !lines.isEmpty
                host.options.removeAll { lines.contains($0) }
                if let id = host.identityID, let original = copies[id] {
                    host.identityID = original
                    changed = true
                }
                if let id = host.identityID { stillUsed.insert(id) }
                guard changed else { continue }
                host.updatedAt = Date()
                try store.save(host)
                fixed.hosts += 1
                fixed.lines += lines.count
            }
            for (copy, _) in copies where !stillUsed.contains(copy) {
                guard identities.first(where: { $0.id == copy })?.privateKeyRef == nil else { continue }
                try store.deleteIdentity(copy)
                fixed.identitiesRemoved += 1
            }
            return fixed
        }
    }
}
