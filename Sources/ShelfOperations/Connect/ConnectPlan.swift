// ConnectPlan: the hops to a host (its jump chain expanded, outermost first, any depth) as SSH endpoints,
// connecting through them, and the bookkeeping a connection leaves on the host records (pins of every verified
// key — also when the login failed afterwards — remembered passwords, last-connected time).
import FoundationEssentials
import ShelfCore
import ShelfSSH
import ShelfStore
import ShelfVault

public struct ConnectPlan: Sendable {
    public var hosts: [ShelfCore.Host]
    public var endpoints: [SSHEndpoint]
    /// The hops (by host id) that must use a post-quantum key exchange (`--pq require` on the host or a group above
    /// it), with why: sshelf's own client has none, so such a plan goes to OpenSSH's ssh.
    public var postQuantum: [UUID: String] = [:]
    /// For each such hop, the command that would allow a classical key exchange again (the hint of a refusal).
    public var postQuantumOff: [UUID: String] = [:]

    public var target: ShelfCore.Host { hosts[hosts.count - 1] }

    /// The plan for `host`, read in one snapshot of the store.
    public static func make(for host: ShelfCore.Host, in store: Store) throws -> ConnectPlan {
        try store.read { store in
            let identities = Dictionary(uniqueKeysWithValues: try store.identities().map { ($0.id, $0) })
            let defaults = try store.optionDefaults()
            var chain: [ShelfCore.Host] = []
            try expand(host, into: &chain, visiting: [], store: store)
            // A field the host leaves unset is taken from its Host patterns, as ssh would (`Host prod-*` / `User
            // deploy`).
            let endpoints = chain.map { host in
                SSHEndpoint(
                    host: OptionDefaults.applied(defaults, to: host).host,
                    identity: host.identityID.flatMap { identities[$0] }, defaults: defaults)
            }
            let tree = GroupTree(try store.groups())
            var plan = ConnectPlan(hosts: chain, endpoints: endpoints)
            for host in chain {
                guard let why = PostQuantumWords.why(host, tree: tree) else { continue }
                plan.postQuantum[host.id] = why
                plan.postQuantumOff[host.id] = PostQuantumWords.offCommand(host, tree: tree)
            }
            return plan
        }
    }

    /// A jump host's own jumps come before it (OpenSSH follows ProxyJump of a jump host the same way).
    private static func expand(
        _ host: ShelfCore.Host, into chain: inout [ShelfCore.Host], visiting: Set<UUID>,
        store: Store
    ) throws {
        // Hints name the host as a command takes it (NAME@ID when the name is shared), quoted for the shell.
        let named = ShellWord.quote(Display.safe(try Resolve.reference(host, in: store)))
        guard !visiting.contains(host.id) else {
            throw ShelfError(
                .invalid, "the jump chain of '\(Display.safe(host.name))' loops back to itself",
                hint: "fix it with: sshelf edit \(named) --jump HOST[,HOST...] (or --jump '' for none)")
        }
        if !host.unresolvedJump.isEmpty && host.jumpHostIDs.isEmpty {
            throw ShelfError(
                .invalid,
                "'\(Display.safe(host.name))' jumps through '\(Display.safe(host.unresolvedJump))', which "
                    + "is not a known host",
                hint: "add that host, then: sshelf edit \(named) --jump NAME")
        }
        for id in host.jumpHostIDs {
            guard let jump = try store.host(id: id) else {
                throw ShelfError(
                    .notFound, "a jump host of '\(Display.safe(host.name))' no longer exists",
                    hint: "sshelf edit \(named) --jump HOST[,HOST...] (or --jump '' for none)")
            }
            try expand(jump, into: &chain, visiting: visiting.union([host.id]), store: store)
        }
        chain.append(host)
    }

    /// The plan for the host named `name` (or an id prefix), read in one snapshot.
    public static func make(named name: String, in store: Store) throws -> ConnectPlan {
        try store.read { store in try make(for: try Resolve.host(name, in: store), in: store) }
    }

    /// Connects through the plan's hops. When the attempt fails after some host keys were verified, their pins
    /// are saved at once (a login refused after `--accept-new` still leaves the key pinned on the record); on
    /// success the caller records `connection.outcome` (see BackgroundRecord).
    public func connect(_ connector: SSHConnector, store: Store) throws(SSHError) -> SSHConnection {
        if let refusal = ownClientRefusal { throw refusal }
        do {
            return try connector.connect(endpoints)
        } catch {
            var pins = ConnectOutcome()
            pins.pinnedKeys = connector.lastOutcome.pinnedKeys
            if !pins.pinnedKeys.isEmpty { try? Self.record(pins, target: nil, store: store) }
            throw error
        }
    }

    /// Why sshelf's own client must not connect this plan (nil: it may): a hop requires post-quantum key exchange,
    /// which libssh2 does not have. Every path of the own client asks, so such a host never falls back to a classical
    /// key exchange when OpenSSH's ssh is not there to take it.
    public var ownClientRefusal: SSHError? {
        guard let why = PostQuantumWords.handover(self),
            let off = hosts.lazy.compactMap({ self.postQuantumOff[$0.id] }).first
        else { return nil }
        return SSHError(
            .invalidConfiguration, why,
            hint: "sshelf hands such a host to OpenSSH's ssh (install openssh-client if it is missing; `sshelf forward "
                + "start \(ShellWord.quote(Display.safe(target.name)))` runs its rules through it), or allow a "
                + "classical key exchange: \(off)")
    }

    /// Saves what the connection changed: verified host keys pinned, remembered password references, and the
    /// last-connected time of the target (when given). A failure here is reported, never fatal to the session.
    public static func record(_ outcome: ConnectOutcome, target: UUID?, store: Store) throws {
        try store.write { store in
            let now = Date()
            for (hostID, key) in outcome.pinnedKeys {
                guard var host = try store.host(id: hostID), host.pinnedHostKey != key else { continue }
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
            for (identityID, reference) in outcome.rememberedKeyPassphrases {
                guard var identity = try store.identities().first(where: { $0.id == identityID }) else { continue }
                identity.passphraseRef = reference
                identity.updatedAt = now
                try store.save(identity)
            }
            if let target, var host = try store.host(id: target) {
                host.lastConnectedAt = now
                try store.save(host)
                // Which key exchange the session used stays on this device (a fact about this device's sessions).
                if let kex = outcome.keyExchanges.last, !kex.isEmpty {
                    try store.setSetting(KeyExchange.settingKey(target), kex)
                }
                // A session that shook hands says what vouched for the key: a certificate, or (removed) not one.
                if !outcome.keyExchanges.isEmpty {
                    try store.setSetting(
                        HostCertificateNote.settingKey(target),
                        outcome.hostCertificates.last { $0.hostID == target }?.trustedBy)
                }
            }
        }
    }
}

extension ConnectOptions {
    /// How this user connects: sshelf's known_hosts, then ~/.ssh/known_hosts; ssh-agent when SSH_AUTH_SOCK is set.
    public static func standard(_ workspace: Workspace, connectTimeout: Double? = nil) -> ConnectOptions {
        let agent = workspace.environment["SSH_AUTH_SOCK"].flatMap { $0.isEmpty ? nil : $0 }
        var options = ConnectOptions(
            trust: .standard(locations: workspace.locations, home: workspace.homeDirectory),
            connectTimeout: connectTimeout ?? 10, agentSocket: agent,
            connectTimeoutGiven: connectTimeout != nil, environment: workspace.environment)
        // Host certificates: the CA's signature checked with the vault target's crypto (public data only).
        options.trust.certificates = HostCertificateCheck(
            verify: { HostKeySignature.verify(hostKey: $0, signature: $1, data: $2) }, timeout: connectTimeout ?? 10)
        // The CA pins `trust --ca` keeps in the store (synced), read only when a certificate may decide.
        options.trust.caPins = CAPins.reader(storePath: workspace.locations.store)
        // The signature itself: libssh2 wraps it with the algorithm's name.
        options.certificateSigner = { keyFile, passphrase, data in
            guard case .success(let key) = SSHPrivateKey.fromKeyFile(keyFile, passphrase: passphrase),
                case .success(let signature) = key.sign(data, flags: 0)
            else { return nil }
            return signature.blob.withUnsafeBytes { bytes -> [UInt8]? in
                var reader = SSHWireReader(bytes)
                guard reader.string(limit: 256) != nil, let raw = reader.bytesString(limit: 1024), reader.isAtEnd
                else { return nil }
                return raw
            }
        }
        return options
    }
}
