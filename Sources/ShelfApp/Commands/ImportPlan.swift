// ImportPlan: maps resolved ssh_config hosts onto the store — update by name, identities by key file,
// ProxyJump to known hosts, forwards without duplicates — and counts what changed.
import Foundation
import ShelfCore
import ShelfOperations
import ShelfStore
import ShelfSystem

struct ImportSummary {
    var added: [String] = []
    var updated: [String] = []
    var unchanged = 0
    var skipped: [String] = []
    var warnings: [String] = []
    var identitiesAdded = 0
    var forwardsAdded = 0
    /// Hosts that could not be imported; the exit code says so.
    var failures: [String] = []

    func text(path: String, dryRun: Bool) -> String {
        var out = dryRun ? "dry run, nothing written: " : ""
        out += "imported \(path): \(added.count) added, \(updated.count) updated, \(unchanged) unchanged, \(skipped.count) skipped"
        if !failures.isEmpty { out += ", \(failures.count) not imported because of errors" }
        if identitiesAdded > 0 { out += ", \(identitiesAdded) identit\(identitiesAdded == 1 ? "y" : "ies") added" }
        if forwardsAdded > 0 { out += ", \(forwardsAdded) forward rule\(forwardsAdded == 1 ? "" : "s") added" }
        out += "\n"
        for name in added { out += "  added    \(Display.safe(name))\n" }
        for name in updated { out += "  updated  \(Display.safe(name))\n" }
        for line in skipped { out += "  skipped  \(Display.safe(line))\n" }
        for line in failures { out += "  error    \(Display.safe(line))\n" }
        for line in warnings { out += "  warning  \(Display.safe(line))\n" }
        return out
    }
}

enum ImportPlan {
    static func apply(_ resolved: SSHConfigImport, groupPath: String?, home: String, store: Store) throws -> ImportSummary {
        var summary = ImportSummary(skipped: resolved.skipped, warnings: resolved.warnings, failures: resolved.failures)
        let group = try groupPath.flatMap { try GroupOperations.create($0, in: store) }
        var identities = try store.identities()
        var byName: [String: ShelfCore.Host] = [:]
        var ambiguous: Set<String> = []
        for host in try store.hosts() {
            if byName[host.name] != nil { ambiguous.insert(host.name) } else { byName[host.name] = host }
        }
        var imported: [(ImportedHost, ShelfCore.Host, Bool)] = []
        for entry in resolved.hosts {
            if ambiguous.contains(entry.alias) {
                summary.failures.append("\(entry.location): host '\(entry.alias)' skipped: several stored hosts have this name")
                continue
            }
            let existing = byName[entry.alias]
            var host = existing ?? ShelfCore.Host(name: entry.alias, groupID: group?.id)
            host.hostname = entry.hostname
            host.user = entry.user
            host.port = entry.port
            if let file = entry.identityFiles.first {
                host.identityID = try identity(for: file, home: home, identities: &identities, summary: &summary, store: store).id
            }
            byName[entry.alias] = host
            imported.append((entry, host, existing == nil))
        }
        // Second pass: jump chains may name hosts defined later in the file.
        for (entry, var host, isNew) in imported {
            let before = try store.host(id: host.id)
            if entry.proxyJump.isEmpty {
                host.jumpHostIDs = []
                host.unresolvedJump = ""
            } else {
                let ids = entry.proxyJump.map { byName[$0]?.id }
                if ids.allSatisfy({ $0 != nil }), !ids.contains(host.id) {
                    host.jumpHostIDs = ids.compactMap { $0 }
                    host.unresolvedJump = ""
                } else {
                    host.jumpHostIDs = []
                    host.unresolvedJump = entry.proxyJump.joined(separator: ",")
                    summary.warnings.append("\(entry.location): host '\(entry.alias)': ProxyJump \(host.unresolvedJump) names no stored host; kept as text")
                }
            }
            let problems = Validation.problems(host)
            if !problems.isEmpty {
                summary.failures.append("\(entry.location): host '\(entry.alias)' skipped: \(problems.map(\.message).joined(separator: "; "))")
                continue
            }
            var changed = isNew || before.map { !sameSettings($0, host) } ?? true
            if changed {
                host.updatedAt = Date()
                try store.save(host)
            }
            let rules = try store.forwardRules(hostID: host.id)
            for spec in entry.forwards where !rules.contains(where: { $0.spec == spec }) {
                try store.save(PortForwardRule(hostID: host.id, kind: spec.kind, bindAddress: spec.bindAddress,
                                               bindPort: spec.bindPort, targetHost: spec.targetHost,
                                               targetPort: spec.targetPort))
                summary.forwardsAdded += 1
                changed = true
            }
            if isNew { summary.added.append(host.name) } else if changed { summary.updated.append(host.name) } else { summary.unchanged += 1 }
        }
        return summary
    }

    static func sameSettings(_ a: ShelfCore.Host, _ b: ShelfCore.Host) -> Bool {
        a.hostname == b.hostname && a.user == b.user && a.port == b.port && a.identityID == b.identityID
            && a.jumpHostIDs == b.jumpHostIDs && a.unresolvedJump == b.unresolvedJump
    }

    /// The identity for an IdentityFile path, created on first sight. Only the path and the public key (from
    /// the `.pub` beside it) are recorded; the private key stays where it is until `sshelf identity import`.
    static func identity(for file: String, home: String, identities: inout [Identity], summary: inout ImportSummary,
                         store: Store) throws -> Identity {
        if let known = identities.first(where: { $0.keyFile == file }) { return known }
        let expanded = SSHConfigReader.expandTilde(file, home: home)
        var identity = Identity(name: uniqueName((file as NSString).lastPathComponent, among: identities),
                                keyType: guessKeyType(file), keyFile: file)
        if let publicKey = (try? RegularFile.read(expanded + ".pub", limit: 64 * 1024)).map({ String(decoding: $0, as: UTF8.self) }),
           let line = publicKey.split(separator: "\n").first.map(String.init), line.utf8.count < 16 * 1024,
           Validation.controlCharacterProblem(line) == nil
        {
            identity.publicKey = line.trimmingCharacters(in: .whitespaces)
            if let algorithm = line.split(separator: " ").first { identity.keyType = KeyType(openSSHAlgorithm: String(algorithm)) }
        }
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
        let name = (file as NSString).lastPathComponent.lowercased()
        if name.contains("ed25519") { return .ed25519 }
        if name.contains("ecdsa") { return .ecdsa }
        if name.contains("rsa") { return .rsa }
        return .other("unknown")
    }
}
