// ConnectPlan: the hops to a host (its jump chain expanded, outermost first, any depth) as SSH endpoints, the
// `--dry-run` description of them (where each credential would come from, never a value), and the bookkeeping
// after a successful connect (pins, remembered passwords, last-connected time).
import Foundation
import ShelfCore
import ShelfSSH
import ShelfStore

struct ConnectPlan {
    var hosts: [ShelfCore.Host]
    var endpoints: [SSHEndpoint]

    var target: ShelfCore.Host { hosts[hosts.count - 1] }

    static func make(for host: ShelfCore.Host, in store: Store) throws -> ConnectPlan {
        let identities = Dictionary(uniqueKeysWithValues: try store.identities().map { ($0.id, $0) })
        var chain: [ShelfCore.Host] = []
        try expand(host, into: &chain, visiting: [], store: store)
        let endpoints = chain.map { SSHEndpoint(host: $0, identity: $0.identityID.flatMap { identities[$0] }) }
        return ConnectPlan(hosts: chain, endpoints: endpoints)
    }

    /// A jump host's own jumps come before it (OpenSSH follows ProxyJump of a jump host the same way).
    private static func expand(_ host: ShelfCore.Host, into chain: inout [ShelfCore.Host], visiting: Set<UUID>,
                               store: Store) throws {
        guard !visiting.contains(host.id) else {
            throw ShelfError(.invalid, "the jump chain of '\(Display.safe(host.name))' loops back to itself",
                             hint: "fix it with: sshelf edit \(Display.safe(host.name)) --jump ...")
        }
        if !host.unresolvedJump.isEmpty && host.jumpHostIDs.isEmpty {
            throw ShelfError(.invalid, "'\(Display.safe(host.name))' jumps through '\(Display.safe(host.unresolvedJump))', which is not a known host",
                             hint: "add that host, then: sshelf edit \(Display.safe(host.name)) --jump NAME")
        }
        for id in host.jumpHostIDs {
            guard let jump = try store.host(id: id) else {
                throw ShelfError(.notFound, "a jump host of '\(Display.safe(host.name))' no longer exists",
                                 hint: "sshelf edit \(Display.safe(host.name)) --jump ... (or '' for none)")
            }
            try expand(jump, into: &chain, visiting: visiting.union([host.id]), store: store)
        }
        chain.append(host)
    }

    /// What `connect --dry-run` prints: hops, host-key status and each method's credential source.
    func describe(trust: HostKeyTrustStore, agentSocket: String?) -> String {
        var lines = ["plan for \(Display.safe(target.name)) (\(endpoints.count) hop\(endpoints.count == 1 ? "" : "s")):"]
        for (index, hop) in endpoints.enumerated() {
            let role = index == endpoints.count - 1 ? "target" : "jump"
            lines.append("  \(index + 1). \(role) \(Display.safe(hop.name)): \(Display.safe(hop.destination))"
                + (index > 0 ? " (through \(Display.safe(endpoints[index - 1].name)), direct-tcpip)" : ""))
            lines.append("     host key: " + hostKeyStatus(hop, trust: trust))
            lines.append("     auth \(hop.authMethod.rawValue), in this order (limited to what the server offers):")
            for method in methods(hop, agentSocket: agentSocket) { lines.append("       - " + method) }
        }
        lines.append("credentials are read only after each hop's host key is verified")
        return lines.joined(separator: "\n")
    }

    private func hostKeyStatus(_ hop: SSHEndpoint, trust: HostKeyTrustStore) -> String {
        if let pin = hop.pinnedHostKey {
            let fingerprint = HostKey(pinned: pin)?.fingerprint ?? "undecodable"
            return "pinned \(pin.type) \(fingerprint)"
        }
        let types = trust.knownTypes(host: hop.hostname, port: hop.port, pinned: nil)
        if !types.isEmpty { return "known in known_hosts as \(types.joined(separator: ", ")) (\(Display.safe(hop.lookupName)))" }
        return "unknown: you will be asked (or use --accept-new)"
    }

    /// The authenticator's own steps (AuthPlan), each with where its credential would come from.
    private func methods(_ hop: SSHEndpoint, agentSocket: String?) -> [String] {
        let steps = AuthPlan.steps(for: hop, agentSocket: agentSocket)
        guard !steps.isEmpty else { return ["nothing to try: no identity with a key, and no ssh-agent (SSH_AUTH_SOCK)"] }
        return steps.map { step in
            switch step {
            case .publicKey(let identity, .vault(let reference)):
                "publickey: identity '\(Display.safe(identity))', private key from the vault (\(reference.rawValue))"
            case .publicKey(let identity, .file(let path)):
                "publickey: identity '\(Display.safe(identity))', key file \(Display.safe(path)), loaded into memory"
            case .agent(let socket?): "agent: ssh-agent at \(Display.safe(socket))"
            case .agent(nil): "agent: none (SSH_AUTH_SOCK not set), so this fails"
            case .keyboardInteractive(let stored):
                "keyboard-interactive: answered on the terminal" + (stored != nil ? "; a lone password prompt from the vault" : "")
            case .password(let stored?): "password: from the vault (\(stored.rawValue)); fails as 'not yet synced' if absent"
            case .password(nil): "password: asked on the terminal (or --password-fd)"
            }
        }
    }

    /// Saves what the connection changed: accepted host keys pinned, remembered password references, and the
    /// last-connected time of the target. A failure here is reported, never fatal to the session.
    static func record(_ outcome: ConnectOutcome, target: UUID, store: Store) throws {
        try store.write { store in
            let now = Date()
            for (hostID, key) in outcome.pinnedKeys {
                guard var host = try store.host(id: hostID) else { continue }
                host.pinnedHostKey = key
                host.updatedAt = now
                try store.save(host)
            }
            for (hostID, reference) in outcome.rememberedPasswords {
                guard var host = try store.host(id: hostID) else { continue }
                host.passwordRef = reference
                host.updatedAt = now
                try store.save(host)
            }
            if var host = try store.host(id: target) {
                host.lastConnectedAt = now
                try store.save(host)
            }
        }
    }
}
