// VaultItemNames: whom `vault list` names each item for — the host or identity it belongs to, by name ("host web1",
// "identity work"), so the list reads without looking UUIDs up; the reference key stays beside it (and in --json,
// with the name as `name`).
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfStore
import ShelfVault

struct VaultItemNames {
    /// An item as `vault list --json` prints it: VaultItemInfo's fields and its name.
    struct Listed: Encodable {
        var key: String
        var family: String
        var accessibility: String
        var updatedAt: Date
        var name: String

        init(_ item: VaultItemInfo, name: String) {
            key = item.key
            family = item.family
            accessibility = item.accessibility
            updatedAt = item.updatedAt
            self.name = name
        }
    }

    private var hosts: [UUID: String] = [:]
    private var identities: [UUID: String] = [:]

    /// Names from `store`; without one (no store on this device yet) items are named by what they are only.
    init(_ store: Store?) throws {
        guard let store else { return }
        let (hosts, identities) = try store.read { store in (try store.hosts(), try store.identities()) }
        // A name two hosts share is told apart as NAME@ID, as every name-based command takes it.
        let shared = Dictionary(grouping: hosts, by: { $0.name.lowercased() }).filter { $0.value.count > 1 }
        for host in hosts {
            let isShared = shared[host.name.lowercased()] != nil
            self.hosts[host.id] = isShared ? "\(host.name)@\(Display.shortID(host.id))" : host.name
        }
        for identity in identities { self.identities[identity.id] = identity.name }
    }

    /// `host web1`, `identity work`, `this device` (sync's and the release log's own keys).
    func name(of key: String) -> String {
        guard let reference = ReferenceKey(key) else { return "unknown" }
        guard let id = reference.ownerID, reference.owner == .host || reference.owner == .identity else {
            return "this device"
        }
        let known = reference.owner == .host ? hosts[id] : identities[id]
        return "\(reference.owner.rawValue) " + (known.map(Display.safe) ?? "\(Display.shortID(id)) (not in the store)")
    }
}
