// BridgeTransparencyCheck: `sshelf check`'s proof of the bridge's transparency rule. For every sshelf host that the
// user's ~/.ssh/config also defines, the installed ssh is asked twice — `ssh -G` of that file as it is (with the
// bridge's Include) and of a copy without the Include — and every option the two answers disagree on is reported,
// apart from what the bridge is there to add (the sshelf agent and its key copies, sshelf's pins).
import Dispatch
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfSystem

public struct BridgeTransparencyCheck: Sendable {
    let bridge: SSHConfigBridge

    public init(bridge: SSHConfigBridge) { self.bridge = bridge }

    /// What ssh's answers may differ in: the settings the bridge adds for the agent and the pins.
    static let bridgeKeys: Set<String> = [
        "identityagent", "identitiesonly", "userknownhostsfile", "globalknownhostsfile", "stricthostkeychecking",
        "updatehostkeys",
    ]

    /// One host's disagreement: each option with what ssh says with the bridge and without it.
    public struct Disagreement: Sendable {
        public var hostID: UUID
        public var name: String
        public var options: [(key: String, with: [String], without: [String])]
        /// sshelf's own values (what `connect` and the TUI use) that differ from what ssh takes from the file: the
        /// file decides for the hosts it defines (the bridge yields), so these are sshelf's copy gone stale.
        public var sshelfDiffers: [(key: String, sshelf: String, file: String)] = []
    }

    /// The hosts ssh reads differently with the bridge installed; none when it is not installed (nothing to compare)
    /// or no ssh is there to ask.
    public func disagreements(hosts: [ShelfCore.Host]) -> [Disagreement] {
        let workspace = bridge.workspace
        let include = SSHConfigInclude(home: workspace.homeDirectory, bridgePath: bridge.path)
        guard bridge.exists, include.isInstalled, access(OpenSSHOptionCheck.sshPath, X_OK) == 0,
            let view = UserSSHConfig.hostLines(home: workspace.homeDirectory, own: bridge.locations.configDirectory),
            let without = include.withoutInclude()
        else { return [] }
        let checked = hosts.compactMap { host in
            ([host.name] + host.aliases).first(where: view.defines).map { (host.id, $0, host) }
        }
        guard !checked.isEmpty else { return [] }
        let scratch =
            bridge.locations.configDirectory
            + "/.transparency-check-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        guard (try? PrivateFiles.atomicWrite(Data(without), to: scratch)) != nil else { return [] }
        defer { unlink(scratch) }
        let found = Found(count: checked.count)
        let keyFiles = bridge.locations.bridgeKeys + "/"
        DispatchQueue.concurrentPerform(iterations: checked.count) { index in
            let (id, name, host) = checked[index]
            guard let with = Self.resolved(include.configPath, name), let alone = Self.resolved(scratch, name) else {
                return
            }
            var options: [(key: String, with: [String], without: [String])] = []
            for key in Set(with.keys).union(alone.keys).sorted() where !Self.bridgeKeys.contains(key) {
                var mine = with[key] ?? []
                if key == "identityfile" { mine.removeAll { $0.hasPrefix(keyFiles) } }
                let theirs = alone[key] ?? []
                if mine != theirs { options.append((key, mine, theirs)) }
            }
            let stale = Self.sshelfDiffers(host, file: alone)
            if !options.isEmpty || !stale.isEmpty {
                found.set(index, Disagreement(hostID: id, name: name, options: options, sshelfDiffers: stale))
            }
        }
        return found.all.compactMap { $0 }
    }

    /// Each host's answer, filled from several threads (ssh is asked about two hosts at once).
    final class Found: @unchecked Sendable {
        private let lock = Lock()
        private var slots: [Disagreement?]
        init(count: Int) { slots = Array(repeating: nil, count: count) }
        func set(_ index: Int, _ value: Disagreement) { lock.withLock { slots[index] = value } }
        var all: [Disagreement?] { lock.withLock { slots } }
    }

    /// `ssh -G -F FILE NAME`: each option's values, in the order ssh lists them; nil when ssh fails.
    static func resolved(_ file: String, _ name: String) -> [String: [String]]? {
        let command = [OpenSSHOptionCheck.sshPath, "-G", "-F", file, "--", name]
        guard let output = ChildProcess.run(command, environment: [:]),
            output.status == 0
        else { return nil }
        var options: [String: [String]] = [:]
        for line in OpenSSHOptionCheck.messages(output.stdout) {
            let parts = line.split(separator: " ", maxSplits: 1)
            options[String(parts[0]), default: []].append(parts.count > 1 ? String(parts[1]) : "")
        }
        return options
    }

    /// sshelf's hostname, user and port for `host` against ssh's answer from the user's file alone.
    static func sshelfDiffers(_ host: ShelfCore.Host, file: [String: [String]]) -> [(
        key: String, sshelf: String, file: String
    )] {
        var differs: [(key: String, sshelf: String, file: String)] = []
        func compare(_ key: String, _ mine: String) {
            guard let theirs = file[key]?.first, theirs.lowercased() != mine.lowercased() else { return }
            differs.append((key, mine, theirs))
        }
        // A %-token in the name is ssh's to expand (it prints the result).
        if !host.hostname.contains("%") { compare("hostname", host.hostname.isEmpty ? host.name : host.hostname) }
        if !host.user.isEmpty { compare("user", host.user) }
        compare("port", String(host.port))
        return differs
    }

    /// What `check` reports.
    public func problems(hosts: [ShelfCore.Host]) -> [ModelProblem] {
        let configPath = SSHConfigInclude(home: bridge.workspace.homeDirectory, bridgePath: bridge.path).configPath
        let found = disagreements(hosts: hosts)
        let stale = found.filter { !$0.sshelfDiffers.isEmpty }.map { found in
            let values = found.sshelfDiffers.map { "\($0.key) \($0.file) (sshelf: \($0.sshelf))" }
            return ModelProblem(
                kind: .bridgeDisagrees, recordID: found.hostID,
                message: "host '\(found.name)': ssh takes its settings from \(configPath), which says "
                    + "\(values.joined(separator: ", ")); sshelf's own connect and the TUI use sshelf's",
                fix: "sshelf import ssh-config takes the file's values in (or change the file: for a host it "
                    + "defines, the file decides what ssh uses)")
        }
        return stale
            + found.filter { !$0.options.isEmpty }.map { found in
                let options = found.options.map { option in
                    "\(option.key) \(Self.values(option.with)) (without the bridge: \(Self.values(option.without)))"
                }
                return ModelProblem(
                    kind: .bridgeDisagrees, recordID: found.hostID,
                    message: "host '\(found.name)': ssh reads it differently with the ssh_config bridge "
                        + "than from \(configPath) alone: \(options.joined(separator: "; "))",
                    fix: "sshelf check --fix writes the bridge anew for \(configPath) as it is now; if they "
                        + "still disagree, make sshelf and that file agree (sshelf edit \(found.name) …, or take "
                        + "its block out of the file: the bridge has it)")
            }
    }

    static func values(_ values: [String]) -> String {
        values.isEmpty ? "unset" : values.joined(separator: ", ")
    }
}
