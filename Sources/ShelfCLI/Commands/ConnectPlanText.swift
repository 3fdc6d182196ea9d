// ConnectPlanText: what `connect --dry-run` prints for a plan — the hops, each host key's status, and the
// authenticator's own steps (AuthPlan) with where each credential would come from, never a value.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfSSH

extension ConnectPlan {
    /// What `connect --dry-run` prints: hops, host-key status and each method's credential source. `unattended`:
    /// for a fleet run (`run`/`cp --dry-run`), which asks nothing — each step says what that run would do instead.
    public func describe(
        trust: HostKeyTrustStore, agentSocket: String?, environment: [String: String] = [:], unattended: Bool = false
    ) -> String {
        var lines = [
            "plan for \(Display.safe(target.name)) (\(endpoints.count) hop\(endpoints.count == 1 ? "" : "s")):"
        ]
        for (index, hop) in endpoints.enumerated() {
            let role = index == endpoints.count - 1 ? "target" : "jump"
            lines.append(
                "  \(index + 1). \(role) \(Display.safe(hop.name)): \(Display.safe(hop.destination))"
                    + (index > 0 ? " (through \(Display.safe(endpoints[index - 1].name)), direct-tcpip)" : ""))
            lines.append("     host key: " + hostKeyStatus(hop, trust: trust, unattended: unattended))
            lines.append("     auth \(hop.authMethod.rawValue), in this order (limited to what the server offers):")
            if index == 0, let command = hop.settings.proxyCommand {
                lines.append("     reached through its ProxyCommand: \(Display.safe(command))")
            }
            for method in methods(hop, agentSocket: agentSocket, environment: environment, unattended: unattended) {
                lines.append("       - " + method)
            }
        }
        lines.append("credentials are read only after each hop's host key is verified")
        return lines.joined(separator: "\n")
    }

    private func hostKeyStatus(_ hop: SSHEndpoint, trust: HostKeyTrustStore, unattended: Bool) -> String {
        if let pin = hop.pinnedHostKey {
            let fingerprint = HostKey(pinned: pin)?.fingerprint ?? "undecodable"
            return "pinned \(pin.type) \(fingerprint)"
        }
        let types = trust.knownTypes(host: hop.hostname, port: hop.port, pinned: nil)
        if !types.isEmpty {
            return "known in known_hosts as \(types.joined(separator: ", ")) (\(Display.safe(hop.lookupName)))"
        }
        return unattended
            ? "unknown: the run skips this host (host-key-refused) unless --accept-new pins it"
            : "unknown: you will be asked (or use --accept-new)"
    }

    /// The authenticator's own steps (AuthPlan), each with where its credential would come from.
    private func methods(
        _ hop: SSHEndpoint, agentSocket: String?, environment: [String: String], unattended: Bool
    ) -> [String] {
        let steps = AuthPlan.steps(for: hop, agentSocket: agentSocket, environment: environment)
        guard !steps.isEmpty else {
            return ["nothing to try: no identity with a key, and no ssh-agent (SSH_AUTH_SOCK)"]
        }
        return steps.map { step in
            switch step {
            case .publicKey(let identity, .vault(let reference)):
                "publickey: identity '\(Display.safe(identity))', private key from the vault (\(reference.rawValue))"
            case .publicKey(let identity, .file(let path)):
                "publickey: identity '\(Display.safe(identity))', key file \(Display.safe(path)), loaded into memory"
            case .publicKey(_, .optionalFile(let path)):
                "publickey: IdentityFile \(Display.safe(path)) (the host's options), when that file exists"
            case .agent(let socket?): "agent: ssh-agent at \(Display.safe(socket))"
            case .agent(nil): "agent: none (SSH_AUTH_SOCK not set), so this fails"
            case .keyboardInteractive(let stored) where unattended:
                stored != nil
                    ? "keyboard-interactive: a lone password prompt answered from the vault "
                        + "(\(stored?.rawValue ?? "")); "
                        + "any other prompt fails this method, since a run asks nothing"
                    : "keyboard-interactive: skipped, a run answers no prompt (nothing stored to answer with)"
            case .keyboardInteractive(let stored):
                "keyboard-interactive: answered on the terminal"
                    + (stored != nil ? "; a lone password prompt from the vault" : "")
            case .password(let stored?):
                "password: from the vault (\(stored.rawValue)); fails as 'not yet synced' if absent"
            case .password(nil) where unattended:
                "password: skipped, none is stored and a run never asks (login-failed if nothing else works)"
            case .password(nil): "password: asked on the terminal (or --password-fd)"
            }
        }
    }
}
