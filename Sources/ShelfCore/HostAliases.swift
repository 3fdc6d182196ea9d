// HostAliases: the rules for a host's other names (`Host web1 web1.prod`) — what an alias may be, and how names are
// compared (ASCII case ignored, as ssh compares Host patterns and the unique-name rule compares names).
import FoundationEssentials

public enum HostAliases {
    /// The most aliases one host keeps (a Host line of a real config rarely has more than a handful).
    public static let maxCount = 64

    /// Why `alias` cannot be an alias: the name rules, plus what would make it something other than one name on a
    /// `Host` line (whitespace splits it, `* ? ! ,` make it a pattern, a quote cannot be written back).
    public static func problem(_ alias: String) -> String? {
        if let problem = Validation.nameProblem(alias, what: "alias") { return problem }
        if Validation.hasWhitespace(alias) { return "alias '\(alias)' contains whitespace" }
        if alias.contains(where: { "*?!,\"#".contains($0) }) {
            return "alias '\(alias)' contains one of * ? ! , \" # which ssh reads as a pattern or a comment"
        }
        return nil
    }

    /// Every problem of a host's aliases: each alias, the count, and a name given twice (the host's own name
    /// included).
    public static func problems(_ host: Host) -> [String] {
        guard !host.aliases.isEmpty else { return [] }  // most hosts: no set of names made
        var found = host.aliases.compactMap(problem)
        if host.aliases.count > maxCount { found.append("more than \(maxCount) aliases") }
        var seen: Set<String> = [fold(host.name)]
        for alias in host.aliases where !seen.insert(fold(alias)).inserted {
            found.append("alias '\(alias)' is given twice (or is the host's name)")
        }
        return found
    }

    /// A name as the unique-name rule compares it: ASCII letters lower-cased, everything else as it is.
    public static func fold(_ name: String) -> String {
        name.utf8.contains(where: { $0 &- 0x41 < 26 })
            ? String(decoding: name.utf8.map { $0 &- 0x41 < 26 ? $0 + 32 : $0 }, as: UTF8.self) : name
    }
}

extension String {
    /// Equal ignoring ASCII case (SQLite's NOCASE, ssh's Host matching of literal names).
    public func caseInsensitiveASCIIEquals(_ other: String) -> Bool {
        utf8.count == other.utf8.count && HostAliases.fold(self) == HostAliases.fold(other)
    }
}
