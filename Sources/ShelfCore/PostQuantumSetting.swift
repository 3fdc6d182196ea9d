// PostQuantumSetting: a host's or group's `pq` setting (`sshelf edit HOST --pq require`): `require` sends every
// session of the host through OpenSSH's ssh limited to post-quantum key exchanges (libssh2 has none), `off` (the
// default) lets sshelf's own client use what it has. A group's `require` covers every host in it and in its subgroups.
import FoundationEssentials

public enum PostQuantumSetting: OpenEnum {
    case off, require
    case other(String)

    public static let knownCases: [PostQuantumSetting] = [.off, .require]

    public var rawValue: String {
        switch self {
        case .off: "off"
        case .require: "require"
        case .other(let raw): raw
        }
    }

    public init(rawValue: String) {
        self = Self.knownCases.first { $0.rawValue == rawValue } ?? .other(rawValue)
    }

    /// Whether sessions must be post-quantum. A value a newer sshelf wrote that this one does not know asks for at
    /// least as much as `require` here: a setting never weakens by being misread.
    public var requires: Bool { self != .off }

    /// What the store keeps: empty for `off` (most records; no change to their synced body), else the raw value.
    public var storeText: String { self == .off ? "" : rawValue }

    public init(storeText: String) { self = storeText.isEmpty ? .off : PostQuantumSetting(rawValue: storeText) }

    /// Whether `host` must use a post-quantum key exchange: its own setting, or that of its group or any group above
    /// it (`groups` by id).
    public static func required(_ host: Host, groups: [UUID: HostGroup]) -> Bool {
        source(host, groups: groups) != nil
    }

    /// Who asks for post-quantum key exchange for `host`: nil when nobody, `.host` for its own setting, else the
    /// group (the nearest one that says `require`).
    public static func source(_ host: Host, groups: [UUID: HostGroup]) -> Source? {
        if host.pq.requires { return .host }
        var seen: Set<UUID> = []
        var next = host.groupID
        while let id = next, seen.insert(id).inserted, let group = groups[id] {
            if group.pq.requires { return .group(group) }
            next = group.parentID
        }
        return nil
    }

    public enum Source: Sendable, Equatable {
        case host
        case group(HostGroup)
    }
}
