// ImportSummary: what an `import ssh-config` changed (or, in a dry run, would change) — the hosts added, updated and
// left as they were, what was skipped and why — and the one text both faces show for it (the CLI prints it; the
// TUI's import dialog shows it, with the groups and forward rules the import makes listed one by one).
import ShelfCore

public struct ImportSummary: Sendable {
    public var added: [String] = []
    public var updated: [String] = []
    public var unchanged = 0
    public var skipped: [String] = []
    public var warnings: [String] = []
    public var notes: [String] = []
    public var identitiesAdded = 0
    public var forwardsAdded = 0
    /// Wildcard `Host` patterns whose options were kept as defaults, each with its file:line.
    public var keptAsDefaults: [String] = []
    /// Hosts that could not be imported; the exit code says so.
    public var failures: [String] = []
    /// The groups the import made, as paths (`prod/eu`): the TUI's dialog lists them.
    public var groupsAdded: [String] = []
    /// The forward rules the import added, each as `HOST -L SPEC`: the TUI's dialog lists them.
    public var forwardRulesAdded: [String] = []

    /// Whether some host could not be imported (the CLI exits with 4).
    public var failed: Bool { !failures.isEmpty }

    public func text(path: String, dryRun: Bool) -> String {
        var out = dryRun ? "dry run, nothing written: " : ""
        out +=
            "imported \(path): \(added.count) added, \(updated.count) updated, \(unchanged) unchanged, "
            + "\(skipped.count) skipped"
        if !failures.isEmpty { out += ", \(failures.count) not imported because of errors" }
        if identitiesAdded > 0 { out += ", \(identitiesAdded) identit\(identitiesAdded == 1 ? "y" : "ies") added" }
        if forwardsAdded > 0 { out += ", \(forwardsAdded) forward rule\(forwardsAdded == 1 ? "" : "s") added" }
        if !keptAsDefaults.isEmpty {
            let count = keptAsDefaults.count
            out += ", options of \(count) Host pattern\(count == 1 ? "" : "s") kept as defaults"
        }
        out += "\n"
        for name in added { out += "  added    \(Display.safe(name))\n" }
        for name in updated { out += "  updated  \(Display.safe(name))\n" }
        for line in keptAsDefaults { out += "  kept as defaults  \(Display.safe(line))\n" }
        for line in skipped { out += "  skipped  \(Display.safe(line))\n" }
        for line in failures { out += "  error    \(Display.safe(line))\n" }
        for line in warnings { out += "  warning  \(Display.safe(line))\n" }
        for line in notes { out += "  note     \(Display.safe(line))\n" }
        return out
    }

    /// The text's lines, then one for each group and forward rule the import makes (the count alone is in the text).
    public func lines(path: String, dryRun: Bool) -> [String] {
        var lines = text(path: path, dryRun: dryRun).split(separator: "\n", omittingEmptySubsequences: false)
            .map(String.init)
        if lines.last == "" { lines.removeLast() }
        lines += groupsAdded.map { "  group    \(Display.safe($0))" }
        lines += forwardRulesAdded.map { "  forward  \(Display.safe($0))" }
        return lines
    }
}
