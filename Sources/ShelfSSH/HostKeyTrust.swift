// HostKeyTrust: decides whether a server's host key is trusted — the host's pinned key first (it travels with
// sync), then sshelf's own known_hosts, then ~/.ssh/known_hosts (read only). Never touches a credential.
import FoundationEssentials
import ShelfCore
import ShelfSystem

public enum HostKeySource: String, Sendable {
    case pinned = "the host's pinned key"
    case sshelfKnownHosts = "sshelf's known_hosts"
    case userKnownHosts = "~/.ssh/known_hosts"
    /// `sshelf trust --ca` (synced): vouches only through host certificates.
    case caPins = "sshelf's CA pins"
}

public enum HostKeyVerdict: Sendable, Equatable {
    case trusted(HostKeySource)
    /// Nothing is known about this host.
    case unknown
    /// A key of the same type is known and differs: possible man-in-the-middle.
    case changed(known: [HostKey], source: HostKeySource)
    /// The host is known only under other key types (e.g. it moved from RSA to ed25519).
    case otherType(knownTypes: [String], source: HostKeySource)
    case revoked(HostKeySource)
}

public struct HostKeyTrustStore: Sendable {
    /// sshelf's own known_hosts: written atomically when a key is accepted.
    public var ownKnownHostsPath: String
    /// The user's OpenSSH known_hosts: read, never written.
    public var userKnownHostsPath: String?
    /// How host certificates are checked (`@cert-authority` lines); nil: they are not (the key alone decides).
    public var certificates: HostCertificateCheck?
    /// The CA pins the store holds (`trust --ca`, synced), as `@cert-authority` entries: read only when a
    /// certificate may decide (no pin or known key did), so a login that needs none never opens the store for them.
    public var caPins: (@Sendable () -> [KnownHostEntry])?

    public init(ownKnownHostsPath: String, userKnownHostsPath: String?) {
        self.ownKnownHostsPath = ownKnownHostsPath
        self.userKnownHostsPath = userKnownHostsPath
    }

    public static func standard(locations: DataLocations, home: String) -> HostKeyTrustStore {
        HostKeyTrustStore(ownKnownHostsPath: locations.knownHosts, userKnownHostsPath: home + "/.ssh/known_hosts")
    }

    private func sources(pinned: PinnedHostKey?, load: (String) -> [KnownHostEntry]? = Self.load)
        -> [(HostKeySource, [KnownHostEntry]?)]
    {
        var result: [(HostKeySource, [KnownHostEntry]?)] = []
        if let pinned {
            // A pin that does not decode is reported as a changed key rather than silently ignored.
            let key = HostKey(pinned: pinned)
            result.append((.pinned, key.map { [KnownHostEntry(marker: nil, hosts: "*", key: $0, comment: "")] }))
        }
        result.append((.sshelfKnownHosts, load(ownKnownHostsPath)))
        if let userKnownHostsPath { result.append((.userKnownHosts, load(userKnownHostsPath))) }
        return result
    }

    /// A known_hosts file's entries (nil: unreadable, which vouches for nothing).
    static func load(_ path: String) -> [KnownHostEntry]? { (try? KnownHostsFile.load(path))?.entries }

    public func evaluate(_ key: HostKey, host: String, port: Int, pinned: PinnedHostKey?) -> HostKeyVerdict {
        evaluate(key, host: host, port: port, pinned: pinned, load: Self.load)
    }

    /// The same, with the known_hosts files read by `load` (a kept session's cache: KnownHostsCache).
    func evaluate(
        _ key: HostKey, host: String, port: Int, pinned: PinnedHostKey?, load: (String) -> [KnownHostEntry]?
    ) -> HostKeyVerdict {
        let name = KnownHostsFile.lookupName(host: host, port: port)
        let all = sources(pinned: pinned, load: load)
        for (source, entries) in all {
            let revoked = (entries ?? []).filter { $0.marker == .revoked && $0.key.blob == key.blob }
            if source != .pinned, !revoked.isEmpty { return .revoked(source) }
        }
        var otherType: HostKeyVerdict? = nil
        for (source, entries) in all {
            if source == .pinned, entries == nil { return .changed(known: [], source: .pinned) }
            let named = (entries ?? []).filter { $0.marker == nil && (source == .pinned || $0.matches(name)) }
            if named.contains(where: { $0.key.blob == key.blob }) { return .trusted(source) }
            let sameType = named.filter { $0.key.type == key.type }
            if !sameType.isEmpty { return .changed(known: sameType.map(\.key), source: source) }
            if !named.isEmpty, otherType == nil {
                otherType = .otherType(knownTypes: Array(Set(named.map(\.key.type))).sorted(), source: source)
            }
        }
        return otherType ?? .unknown
    }

    /// Key types already known for this host, for ordering the host-key algorithm preference.
    public func knownTypes(host: String, port: Int, pinned: PinnedHostKey?) -> [String] {
        knownTypes(host: host, port: port, pinned: pinned, load: Self.load)
    }

    /// The same, with the files read by `load` (a login's KnownHostsCache, which its host key check reads again).
    func knownTypes(host: String, port: Int, pinned: PinnedHostKey?, load: (String) -> [KnownHostEntry]?) -> [String] {
        let name = KnownHostsFile.lookupName(host: host, port: port)
        var types: [String] = []
        for (source, entries) in sources(pinned: pinned, load: load) {
            for entry in entries ?? [] where entry.marker == nil && (source == .pinned || entry.matches(name)) {
                if !types.contains(entry.key.type) { types.append(entry.key.type) }
            }
        }
        return types
    }

    /// Adds the key to sshelf's known_hosts (replacing this host's entries when asked), keeping every other line.
    /// Under a lock beside the file: a fleet run accepting many new hosts at once, or two processes, would otherwise
    /// each rewrite the file from what it read and lose the other's line.
    public func remember(_ key: HostKey, host: String, port: Int, replacing: Bool) throws(SSHError) {
        try editOwnKnownHosts { file in
            let name = KnownHostsFile.lookupName(host: host, port: port)
            if replacing { file.remove(name) }
            if !file.entries(for: name).contains(where: { $0.marker == nil && $0.key.blob == key.blob }) {
                file.append(key, for: name)
            }
        }
    }

    /// Reads sshelf's known_hosts, lets `change` edit it and writes it back, all under the lock beside the file.
    func editOwnKnownHosts(_ change: (inout KnownHostsFile) -> Void) throws(SSHError) {
        let lockPath = ownKnownHostsPath + ".lock"
        let lock: FileLock
        do {
            try PrivateFiles.ensureDirectory(ownKnownHostsPath.parentPath)
            lock = try FileLock(lockPath)
        } catch {
            throw SSHError(.invalidConfiguration, "could not lock \(lockPath): \(error)")
        }
        defer { lock.release() }
        var file = try KnownHostsFile.load(ownKnownHostsPath)
        change(&file)
        try file.write(to: ownKnownHostsPath)
    }
}
