// KeyDestination: where an identity's key may be used (`identity edit KEY --only HOST|@GROUP`) — a host, or every
// host of a group and its subgroups, named by id so a rename keeps the binding. Written as `host:ID` / `group:ID`;
// a form this version does not know is kept as it came (sync from a newer device) and matches no host, so a
// binding never widens by being misread.
import FoundationEssentials

public enum KeyDestination: Hashable, Sendable, Codable, CustomStringConvertible {
    case host(UUID)
    case group(UUID)
    /// Written by a newer version: kept, matches nothing.
    case other(String)

    public init(text: String) {
        if text.hasPrefix("host:"), let id = UUID(uuidString: String(text.dropFirst(5))) {
            self = .host(id)
        } else if text.hasPrefix("group:"), let id = UUID(uuidString: String(text.dropFirst(6))) {
            self = .group(id)
        } else {
            // Never empty and never the store's list separator: an unknown form must survive as one entry.
            self = .other(text.isEmpty || text.contains("\u{1F}") ? "invalid" : text)
        }
    }

    public var description: String {
        switch self {
        case .host(let id): "host:" + id.uuidString.lowercased()
        case .group(let id): "group:" + id.uuidString.lowercased()
        case .other(let text): text
        }
    }

    public init(from decoder: Decoder) throws {
        self.init(text: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// The hosts these destinations name: a group brings the hosts of its subgroups too.
    public static func hosts(_ destinations: [KeyDestination], among hosts: [Host], groups: [HostGroup]) -> [Host] {
        var hostIDs: Set<UUID> = []
        var groupIDs: Set<UUID> = []
        let tree = GroupTree(groups)
        for destination in destinations {
            switch destination {
            case .host(let id): hostIDs.insert(id)
            case .group(let id): groupIDs.formUnion(tree.subtree(of: id).union([id]))
            case .other: break
            }
        }
        return hosts.filter { hostIDs.contains($0.id) || $0.groupID.map(groupIDs.contains) == true }
    }
}
