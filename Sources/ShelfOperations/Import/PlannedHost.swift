// PlannedHost: one host of an imported file as the plan's first pass leaves it — where it is in the file, its id, and
// what the first pass decided that the file's entry does not say. The `Host` to store is made from it in the second
// pass (a new host's on the other core, as its row is made), instead of a `Host` of about 350 bytes held for each of
// 100,000 names from the first pass to the commit: that was a third of the import's peak (docs/PERFORMANCE.md,
// "Import").
import FoundationEssentials
import ShelfCore

struct PlannedHost: Sendable {
    /// Where the host is in the file's hosts (`SSHConfigImport.hosts`).
    var index: Int
    /// The file's aliases the host keeps, after the stored host's own.
    var aliases: [String]
    /// The host's options: the file's, without what the ssh_config bridge writes or the post-quantum list.
    var options: [String]
    var pq: PostQuantumSetting
    /// The stored host's id, or a new host's (`ImportPlan.unassigned` until the first pass hands them out).
    var id: UUID
    /// A new host's group (a stored host keeps its own).
    var groupID: UUID?
    var identityID: UUID?
    var isNew: Bool
    /// A stored host's user and port that its Host patterns give it stay unset (the file's are theirs).
    var userFromPatterns = false
    var portFromPatterns = false

    /// What the first pass starts from: the stored host's settings, or a new host's.
    init(index: Int, existing: ShelfCore.Host?, groupID: UUID?) {
        self.index = index
        aliases = existing?.aliases ?? []
        options = []
        pq = existing?.pq ?? .off
        id = existing?.id ?? ImportPlan.unassigned
        self.groupID = groupID
        identityID = existing?.identityID
        isNew = existing == nil
    }

    /// True when `text` is the host's name or one of its aliases so far, ignoring ASCII case (as `Host.answers`).
    func answers(to text: String, name: String) -> Bool {
        name.caseInsensitiveASCIIEquals(text) || aliases.contains { $0.caseInsensitiveASCIIEquals(text) }
    }

    /// The host to store: `stored` (nil for a new host) with the file's settings, as the first pass decided them.
    func host(_ entry: ImportedHost, stored: ShelfCore.Host?) -> ShelfCore.Host {
        var host = stored ?? ShelfCore.Host(id: id, name: entry.alias, groupID: groupID)
        host.aliases = aliases
        // A `#@desc:` describes a new host, or one whose notes are empty.
        if host.notes.isEmpty, !entry.description.isEmpty { host.notes = entry.description }
        host.hostname = entry.hostname
        host.user = userFromPatterns ? "" : entry.user
        host.port = portFromPatterns ? ShelfCore.Host.defaultPort : entry.port
        host.options = options
        host.pq = pq
        host.identityID = identityID
        return host
    }
}
