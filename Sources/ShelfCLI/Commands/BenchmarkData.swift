// BenchmarkData: the hosts the benchmarks run on. `synthetic` is the old seeded store (host-000042 in seven
// groups); `realistic` looks like a large fleet: names like db-fra-prod-004217, FQDN host names, four users,
// about 10% second aliases, half the hosts behind a bastion of their site, groups three deep (env/region/site)
// and a key file per environment. One deterministic generator writes both the store and the same hosts as
// an ssh_config, so the import benchmark and fzf read exactly what the TUI and `list` search.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfStore

enum BenchmarkData {
    enum Kind: String, CaseIterable, Sendable { case synthetic, realistic }

    /// One host as the generator made it (store and config are written from this).
    struct Entry {
        var name: String
        var hostname: String
        var user: String
        var port: Int
        var groupPath: String
        var tags: [String]
        var keyFile: String
        var jump: String?
        /// An alias written on the same `Host` line as the previous entry (a second name for the same machine).
        var sharesBlock: Bool
        var lastConnected: Date?
    }

    static let sites: [(region: String, site: String)] = [
        ("eu", "fra"), ("eu", "ams"), ("eu", "lon"), ("eu", "par"), ("eu", "waw"), ("us", "nyc"), ("us", "sfo"),
        ("us", "iad"), ("us", "dfw"), ("ap", "sin"), ("ap", "syd"), ("ap", "tok"), ("ap", "bom"),
    ]
    static let envs = ["prod", "prod", "prod", "prod", "staging", "staging", "dev", "qa"]
    static let roles = [
        "web", "db", "cache", "api", "auth", "queue", "search", "edge", "batch", "mail", "lb", "kafka", "redis",
        "metrics", "log", "ci", "vpn", "dns", "git", "worker",
    ]
    static let users = ["deploy", "deploy", "root", "admin", "ubuntu"]

    static func entries(count: Int, kind: Kind) -> [Entry] {
        switch kind {
        case .synthetic: return synthetic(count)
        case .realistic: return realistic(count)
        }
    }

    static func synthetic(_ count: Int) -> [Entry] {
        let paths = ["prod/eu/web", "prod/eu/db", "prod/us", "staging", "lab", "dev/team-a", "dev/team-b"]
        let tags = [["web"], ["db", "critical"], ["cache"], [], ["web", "canary"]]
        return (0..<count).map { n in
            Entry(
                name: "host-" + TextFormat.zeroPadded(n, width: 6),
                hostname: "10.\(n >> 16).\((n >> 8) & 255).\(n & 255)",
                user: n % 3 == 0 ? "root" : "deploy", port: 22, groupPath: paths[n % paths.count],
                tags: tags[n % tags.count], keyFile: "", jump: nil, sharesBlock: false, lastConnected: nil)
        }
    }

    static func realistic(_ count: Int) -> [Entry] {
        var random = SplitMix64(state: UInt64(count))
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        // One bastion per site and environment, first in the file as in most hand-kept configs.
        let bastionCount = min(count / 20, sites.count * 4)
        var bastions: [String: String] = [:]
        for i in 0..<bastionCount {
            let (region, site) = sites[i % sites.count]
            let env = ["prod", "staging", "dev", "qa"][i / sites.count]
            let name = "bastion-\(site)-\(env)"
            bastions["\(site)/\(env)"] = name
            entries.append(
                Entry(
                    name: name, hostname: "bastion.\(site).\(env).example.com", user: "jump", port: 22,
                    groupPath: "\(env)/\(region)/\(site)", tags: ["bastion"],
                    keyFile: "~/.ssh/id_ed25519_\(env)", jump: nil, sharesBlock: false, lastConnected: nil))
        }
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        var serial = 0
        while entries.count < count {
            serial += 1
            let (region, site) = random.pick(sites)
            let env = random.pick(envs)
            let role = random.pick(roles)
            let number = TextFormat.zeroPadded(serial, width: 6)
            let name = "\(role)-\(site)-\(env)-\(number)"
            var tags = [role]
            if random.below(20) == 0 { tags.append("critical") }
            if random.below(33) == 0 { tags.append("legacy") }
            let jump = random.below(2) == 0 ? bastions["\(site)/\(env)"] : nil
            let recent = random.below(50) == 0 ? now.addingTimeInterval(-Double(random.below(90 * 86_400))) : nil
            let entry = Entry(
                name: name, hostname: "\(role)-\(number).\(site).\(env).example.com",
                user: random.pick(users), port: random.below(20) == 0 ? 2222 : 22,
                groupPath: "\(env)/\(region)/\(site)", tags: tags, keyFile: "~/.ssh/id_ed25519_\(env)",
                jump: jump, sharesBlock: false, lastConnected: recent)
            entries.append(entry)
            if entries.count < count, random.below(10) == 0 {
                var alias = entry
                alias.name = "\(role)\(serial)"
                alias.sharesBlock = true
                alias.lastConnected = nil
                entries.append(alias)
            }
        }
        return entries
    }

    /// Writes the entries into an empty store in one transaction (groups, one identity per key file, hosts
    /// with their jump hosts).
    static func seed(_ entries: [Entry], into store: Store) throws {
        try store.write { store in
            var groups: [String: UUID] = [:]
            for path in Set(entries.map(\.groupPath)).sorted() {
                groups[path] = try GroupOperations.create(path, in: store)?.id
            }
            var identities: [String: UUID] = [:]
            for file in Set(entries.map(\.keyFile)).sorted() where !file.isEmpty {
                let identity = Identity(name: file.lastPathPart, keyFile: file)
                try store.save(identity)
                identities[file] = identity.id
            }
            var ids: [String: UUID] = [:]
            var hosts = entries.map { entry in
                let host = ShelfCore.Host(
                    name: entry.name, hostname: entry.hostname, port: entry.port, user: entry.user,
                    groupID: groups[entry.groupPath], tags: entry.tags,
                    identityID: identities[entry.keyFile], lastConnectedAt: entry.lastConnected)
                ids[entry.name] = host.id
                return host
            }
            for (i, entry) in entries.enumerated() {
                if let jump = entry.jump, let id = ids[jump] { hosts[i].jumpHostIDs = [id] }
            }
            try store.save(hosts: hosts)
        }
    }

    /// The same hosts as a hand-kept ssh_config: one block per machine (a second alias shares its line).
    static func sshConfig(_ entries: [Entry]) -> String {
        var out = "# \(entries.count) hosts made by sshelf's benchmark generator\n"
        out.reserveCapacity(entries.count * 120)
        var i = 0
        while i < entries.count {
            let entry = entries[i]
            var names = entry.name
            if i + 1 < entries.count, entries[i + 1].sharesBlock {
                names += " " + entries[i + 1].name
                i += 1
            }
            out += "\nHost \(names)\n    HostName \(entry.hostname)\n    User \(entry.user)\n"
            if entry.port != 22 { out += "    Port \(entry.port)\n" }
            if !entry.keyFile.isEmpty { out += "    IdentityFile \(entry.keyFile)\n" }
            if let jump = entry.jump { out += "    ProxyJump \(jump)\n" }
            i += 1
        }
        return out
    }
}
