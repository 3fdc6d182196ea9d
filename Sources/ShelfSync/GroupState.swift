// GroupState: which sync group this device belongs to, kept in the store's device-local settings — the group id
// and its anchor (the digest of the genesis certificate this device trusts, from creating the group or from the
// invite it joined with) — and, while a joining device waits for its enrollment, which invite it used.
import FoundationEssentials
import ShelfStore

struct GroupState: Equatable {
    var group: UUID
    /// BLAKE2b-256 of the genesis certificate: the roster is computed from it and nothing else.
    var anchor: [UInt8]

    static func load(_ store: Store) throws -> GroupState? {
        guard let groupText = try store.setting("sync.group"), let group = UUID(uuidString: groupText),
            let anchorText = try store.setting("sync.anchor"), let anchor = [UInt8](hex: anchorText), anchor.count == 32
        else { return nil }
        return GroupState(group: group, anchor: anchor)
    }

    /// Saves this as the device's group; call inside `write`.
    func save(_ store: Store) throws {
        try store.setSetting("sync.group", group.lowerText)
        try store.setSetting("sync.anchor", anchor.hex)
    }

    /// Forgets the group (joining another, or yielding to an older group); call inside `write`.
    static func clear(_ store: Store) throws {
        for key in ["sync.group", "sync.anchor", "sync.epoch.written", "sync.credentials.digest"] {
            try store.setSetting(key, nil)
        }
        try Joining.clear(store)
        try store.forgetSyncGroup()
    }

    /// A device that ran `sync join` and waits for the inviting device to enroll it: which invite, and the group
    /// and genesis its box named (the welcome must enroll this device in exactly that group). It holds no key of
    /// the group until the welcome arrives.
    struct Joining: Equatable {
        var invite: UUID
        var inviter: String
        var expires: Date
        var group: UUID
        var anchor: [UInt8]

        static let keys = [
            "sync.join.invite", "sync.join.inviter", "sync.join.expires", "sync.join.group", "sync.join.anchor",
        ]

        static func load(_ store: Store) throws -> Joining? {
            guard let inviteText = try store.setting("sync.join.invite"), let invite = UUID(uuidString: inviteText),
                let expiresText = try store.setting("sync.join.expires"), let expires = Double(expiresText),
                let groupText = try store.setting("sync.join.group"), let group = UUID(uuidString: groupText),
                let anchorText = try store.setting("sync.join.anchor"), let anchor = [UInt8](hex: anchorText),
                anchor.count == 32
            else { return nil }
            return Joining(
                invite: invite, inviter: try store.setting("sync.join.inviter") ?? "another device",
                expires: Date(timeIntervalSince1970: expires), group: group, anchor: anchor)
        }

        func save(_ store: Store) throws {
            try store.setSetting("sync.join.invite", invite.lowerText)
            try store.setSetting("sync.join.inviter", inviter)
            try store.setSetting("sync.join.expires", String(expires.timeIntervalSince1970))
            try store.setSetting("sync.join.group", group.lowerText)
            try store.setSetting("sync.join.anchor", anchor.hex)
        }

        static func clear(_ store: Store) throws {
            for key in keys { try store.setSetting(key, nil) }
        }
    }
}
