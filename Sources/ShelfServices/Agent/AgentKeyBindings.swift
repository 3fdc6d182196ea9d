// AgentKeyBindings: the host-bound keys as the agent sees them for one request — for each key, the hosts every
// identity holding it is bound to (`identity edit --only`), each with the host key sshelf pinned for it — and the
// words for a refusal, naming servers by the hosts that pin their keys.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfVault

struct AgentKeyBindings {
    /// Per key blob, one list of bound hosts per identity holding the key that is bound: each must allow a use.
    private let bound: [[UInt8]: [[AgentBoundHost]]]
    private let hosts: [ShelfCore.Host]

    init(identities: [Identity], hosts: [ShelfCore.Host], groups: [HostGroup]) {
        self.hosts = hosts
        var bound: [[UInt8]: [[AgentBoundHost]]] = [:]
        for identity in identities where !identity.onlyTo.isEmpty {
            guard let blob = SSHPublicKey.blob(fromLine: identity.publicKey) else { continue }
            let places = KeyDestination.hosts(identity.onlyTo, among: hosts, groups: groups).compactMap { host in
                Self.pinnedBlob(host).map { AgentBoundHost(name: host.name, user: host.user, hostKey: $0) }
            }
            bound[blob, default: []].append(places)
        }
        self.bound = bound
    }

    /// Whether any identity holding the key binds it to hosts.
    func isBound(_ blob: [UInt8]) -> Bool { bound[blob] != nil }

    /// Nil when the key is listed on a connection with these bindings; otherwise why not.
    func listRefusal(_ blob: [UInt8], on bindings: AgentBindings) -> AgentBindingRefusal? {
        for places in bound[blob] ?? [] {
            if let refusal = bindings.listRefusal(boundTo: places) { return refusal }
        }
        return nil
    }

    /// Nil when the key may sign `data` on this connection (or is bound nowhere); otherwise the first reason not to.
    /// `offered` is what the login names: the key, or a certificate of it.
    func refusal(_ blob: [UInt8], offered: [UInt8], signing data: [UInt8], on bindings: AgentBindings)
        -> AgentBindingRefusal?
    {
        for places in bound[blob] ?? [] {
            if let refusal = bindings.refusal(signing: data, keyBlob: offered, boundTo: places) { return refusal }
        }
        return nil
    }

    /// The hosts the key is bound to, by name, for a message (`web1, db2`, or `no host with a pinned key`).
    func boundNames(_ blob: [UInt8]) -> String {
        let names = Set((bound[blob] ?? []).flatMap { $0.map(\.name) }).sorted().map(Display.safe)
        return names.isEmpty ? "no host with a pinned key" : names.joined(separator: ", ")
    }

    /// The hosts whose pinned host key is `hostKey`.
    func names(pinning hostKey: [UInt8]) -> [String] {
        hosts.filter { Self.pinnedBlob($0) == hostKey }.map(\.name)
    }

    /// `host web1` / `hosts a, b`, or `a server sshelf has not pinned (SHA256:…)`.
    func server(_ hostKey: [UInt8]) -> String {
        let names = names(pinning: hostKey).map(Display.safe)
        if names.isEmpty { return "a server sshelf has not pinned (\(SSHPublicKey.fingerprint(hostKey)))" }
        return (names.count == 1 ? "host " : "hosts ") + names.joined(separator: ", ")
    }

    /// The host a refused request asked for, for the release log: the names pinning the server logged in to, else
    /// its key's fingerprint; nil when the connection named no server.
    func askedFor(_ bindings: AgentBindings) -> String? {
        guard let destination = bindings.destination else { return nil }
        let names = names(pinning: destination.hostKey)
        return names.isEmpty
            ? "unpinned server \(SSHPublicKey.fingerprint(destination.hostKey))" : names.joined(separator: ", ")
    }

    func describe(_ refusal: AgentBindingRefusal, key blob: [UInt8]) -> String {
        switch refusal {
        case .unbound:
            return "the client did not say which server it logs in to (ssh from OpenSSH 8.9 on sends "
                + "session-bind@openssh.com); the key is bound to \(boundNames(blob))"
        case .bindFailed: return "a session binding on this connection did not verify"
        case .notALogin: return "what it was asked to sign is not a login with this key"
        case .otherSession: return "the login is for another session than the one the connection is bound to"
        case .hostKeyMismatch: return "the login names another server than the one the connection is bound to"
        case .signOnForwardingHop: return "the connection is bound for forwarding the agent, not for a login"
        case .forwardedThroughLogin: return "the connection's bindings are out of order (a login before a forwarding)"
        case .hopNotBound(let index, let hostKey):
            return
                "the agent was forwarded through \(server(hostKey)) (hop \(index + 1)), which is not one of the key's "
                + "hosts (\(boundNames(blob)))"
        case .destinationNotBound(let hostKey):
            return "\(server(hostKey)) is not one of the key's hosts (\(boundNames(blob)))"
        case .wrongUser(let user, let allowed):
            let users = Set(allowed).sorted().map { "'\(Display.safe($0))'" }.joined(separator: ", ")
            return "the login is as user '\(Display.safe(user))'; the key's host there logs in as \(users)"
        }
    }

    private static func pinnedBlob(_ host: ShelfCore.Host) -> [UInt8]? {
        guard let pinned = host.pinnedHostKey, let data = Data(base64Encoded: pinned.key), !data.isEmpty else {
            return nil
        }
        let blob = [UInt8](data)
        return SSHPublicKey.typeName(of: blob) == pinned.type ? blob : nil
    }
}
