// RecordSetting: whether a host's interactive sessions are recorded (docs/SESSIONS.md) — off, on, or ask at each
// connect. A host without its own setting takes its group's, a group without one its parent's; none at all is off.
import FoundationEssentials

public enum RecordSetting: String, Sendable, Codable, CaseIterable {
    case off, on, ask

    /// The words `--record` takes: the three settings, and `group` to clear a host's (or group's) own.
    public static let words = ["off", "on", "ask", "group"]

    /// The setting that applies to `host`: its own, else the nearest group's up the tree, else off.
    public static func effective(host: Host, groups: [UUID: HostGroup]) -> RecordSetting {
        if let own = host.record { return own }
        var next = host.groupID
        var seen: Set<UUID> = []
        while let id = next, let group = groups[id], seen.insert(id).inserted {
            if let setting = group.record { return setting }
            next = group.parentID
        }
        return .off
    }

    /// Reads a stored or synced value: anything that is not one of the three (a newer version's word) is no setting.
    static func decoded(_ text: String?) -> RecordSetting? { text.flatMap(RecordSetting.init(rawValue:)) }
}
