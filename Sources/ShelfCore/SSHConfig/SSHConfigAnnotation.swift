// SSHConfigAnnotation: the grouping comments other tools write into ssh_config (sshclick's convention): `#@group: NAME`
// before Host lines puts the hosts that follow in a group (until the next `#@group:`; an empty one ends it), and
// `#@desc: TEXT` inside a host's block describes it (several lines join). ssh reads them as comments; sshelf keeps them
// as lines of their own kind (`#@group`, `#@desc`), which the resolver reads and nothing takes as an option.
import FoundationEssentials

public enum SSHConfigAnnotation {
    public static let group = "#@group"
    public static let description = "#@desc"

    /// True for an annotation line's key.
    public static func isAnnotation(_ key: String) -> Bool { key == group || key == description }

    /// The annotation a raw line holds, or nil (a cheap test first: nearly every line starts otherwise).
    static func line(_ raw: UnsafeBufferPointer<UInt8>, file: String, number: Int) -> SSHConfigLine? {
        var start = 0
        while start < raw.count, raw[start] == 0x20 || raw[start] == 0x09 { start += 1 }
        guard start + 2 < raw.count, raw[start] == 0x23, raw[start + 1] == 0x40 else { return nil }
        let text = String(decoding: UnsafeBufferPointer(rebasing: raw[start...]), as: UTF8.self)
        for key in [group, description] where text.lowercased().hasPrefix(key + ":") {
            let value = text.dropFirst(key.count + 1).trimmingSpacesAndNewlines()
            return SSHConfigLine(keyword: key, arguments: [value], file: file, number: number)
        }
        return nil
    }
}
