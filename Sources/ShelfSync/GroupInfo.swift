// GroupInfo: the sync group as the CLI shows it — the roster this device verified (names, who enrolled whom and
// when, revocations, when each device was last heard from), finding a device by name or id prefix, and making
// an invite. Reads only what this device holds; the remote is not consulted.
import FoundationEssentials
import ShelfCore
import ShelfStore
import ShelfVault

public struct SyncDeviceInfo: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var thisDevice: Bool
    public var enrolledBy: String?
    public var enrolledAt: Date?
    public var revokedBy: String?
    public var revokedAt: Date?
    /// Entries of its chain up to here were verified (applied) on this device.
    public var verifiedEntries: Int64
    public var lastSeen: Date?
}

public enum GroupInfo {
    static func roster(_ store: Store) throws -> Roster? {
        guard let state = try GroupState.load(store) else { return nil }
        let certificates = try store.certificates().compactMap { stored in
            [UInt8](hex: stored.body).flatMap { try? Certificate(parsing: $0) }
        }
        return Roster(group: state.group, anchor: state.anchor, certificates: certificates)
    }

    /// Every device the roster ever enrolled, this one first; empty when this device has no group.
    public static func devices(_ store: Store) throws -> [SyncDeviceInfo] {
        guard let roster = try roster(store) else { return [] }
        let me = try store.deviceID
        func date(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
        var rows: [SyncDeviceInfo] = []
        for member in roster.enrolled.values {
            let peer = try store.peer(member.device.lowerText)
            let revocation = roster.revoked[member.device]
            rows.append(
                SyncDeviceInfo(
                    id: member.device.lowerText, name: member.name, thisDevice: member.device.lowerText == me,
                    enrolledBy: member.addedBy.map { roster.name(of: $0) }, enrolledAt: date(member.addedAt),
                    revokedBy: revocation.map { roster.name(of: $0.by) }, revokedAt: revocation.map { date($0.at) },
                    verifiedEntries: peer.head, lastSeen: peer.lastSeen))
        }
        return rows.sorted { ($0.thisDevice ? 0 : 1, $0.name, $0.id) < ($1.thisDevice ? 0 : 1, $1.name, $1.id) }
    }

    public enum Lookup: Equatable {
        case found(id: UUID, name: String)
        case notFound
        case ambiguous([String])
    }

    /// A device of the roster by its name (ignoring case) or an id prefix of at least four characters; several that
    /// match are listed as `NAME (ID8)` for the caller to say how to pick one.
    public static func find(_ text: String, in store: Store) throws -> Lookup {
        let devices = try devices(store)
        let byName = devices.filter { $0.name.lowercased() == text.lowercased() }
        let lowered = text.lowercased()
        let matches = byName.isEmpty ? devices.filter { lowered.count >= 4 && $0.id.hasPrefix(lowered) } : byName
        guard let first = matches.first else { return .notFound }
        guard matches.count == 1, let id = UUID(uuidString: first.id) else {
            return .ambiguous(matches.map { "\($0.name) (\($0.id.prefix(8)))" })
        }
        return .found(id: id, name: first.name)
    }

    /// Names `device` (this device when nil) in the group: a name certificate this device signs (NameCertificate),
    /// kept here and sent in its next entry. Any active member names any device not revoked; the name must be one line
    /// of at most 64 bytes without control or format characters (DeviceName) that no other device of the group has
    /// (ignoring case). Returns the device's former name.
    @discardableResult
    public static func rename(
        _ device: UUID? = nil, to name: String, store: Store, vault: Vault, now: Date = Date()
    ) throws -> String {
        guard let state = try GroupState.load(store), let roster = try roster(store),
            let me = UUID(uuidString: try store.deviceID), roster.isActive(me)
        else {
            throw SyncFailure(
                "this device is not an enrolled member of a sync group", hint: "a device gets its name when it joins")
        }
        let target = device ?? me
        guard let member = roster.enrolled[target] else {
            throw SyncFailure(
                "device \(target.lowerText.prefix(8)) is not in the sync group",
                hint: "'sshelf sync devices' lists the devices of the group")
        }
        if let revocation = roster.revoked[target] {
            throw SyncFailure(
                "'\(member.name)' (\(target.lowerText.prefix(8))) was revoked by \(roster.name(of: revocation.by)); "
                    + "a revoked device cannot be renamed",
                hint: "'sshelf sync devices' lists the devices of the group; a revoked device keeps the name it had")
        }
        let trimmed = name.trimmingSpaces()
        if let problem = DeviceName.problem(trimmed) {
            throw SyncFailure(
                problem,
                hint: trimmed.utf8.count > Certificate.maxName ? "choose a shorter name" : "type the name in plain text"
            )
        }
        if let other = roster.enrolled.values.first(where: {
            $0.device != target && $0.name.lowercased() == trimmed.lowercased()
        }) {
            throw SyncFailure(
                "device \(other.device.lowerText.prefix(8)) of the group is named '\(other.name)' already",
                hint: "choose another name (names tell devices apart in 'sshelf sync devices' and conflicts)")
        }
        guard trimmed != member.name else { return member.name }
        let keys: SyncCrypto.DeviceKeys
        do { keys = try vault.deviceKeys(class: SyncSession.keyClass) } catch { throw SyncSession.failure(error) }
        let session = try SyncSession(
            store: store, vault: vault, keys: keys, me: me, deviceName: roster.name(of: me), now: now, state: state)
        _ = try session.issue(Certificate.naming(target, as: trimmed, signer: me, key: keys.signingPublicKey))
        return member.name
    }

    /// This device's place in its group from what it holds, without the remote: "member", "waiting" (joined, not
    /// enrolled yet), "revoked", or nil when it has no group. A run that stops before reading the remote keeps it.
    public static func membership(_ store: Store) throws -> String? {
        guard let roster = try roster(store), let me = UUID(uuidString: try store.deviceID) else {
            return try GroupState.Joining.load(store) != nil ? "waiting" : nil
        }
        if roster.revoked[me] != nil { return "revoked" }
        if roster.isActive(me) { return "member" }
        return try GroupState.Joining.load(store) != nil ? "waiting" : nil
    }

    /// Whether this device may invite others now: it is an enrolled, unrevoked member of a group.
    public static func isMember(_ store: Store) throws -> Bool {
        guard let roster = try roster(store), let me = UUID(uuidString: try store.deviceID) else { return false }
        return roster.isActive(me)
    }

    /// Makes an invite: its secret goes to the vault (device-only), its expiry to the store; the next sync run writes
    /// its box to the remote. The code is returned to be shown once.
    public static func createInvite(
        store: Store, vault: Vault, lifetime: TimeInterval, now: Date = Date()
    ) throws -> InviteCode {
        let code = InviteCode.generate()
        do { try vault.saveInviteSecret(code.secret, invite: code.id, class: SyncSession.keyClass) } catch {
            throw SyncSession.failure(error)
        }
        try store.write {
            try $0.addInvite(
                PendingInvite(
                    id: code.id.lowerText, created: now, expires: now.addingTimeInterval(lifetime), epochs: []))
        }
        return code
    }

    /// A device's name as this device knows it (for conflicts and messages); the id's first characters otherwise.
    public static func names(_ store: Store) throws -> [String: String] {
        guard let roster = try roster(store) else { return [:] }
        var names: [String: String] = [:]
        for member in roster.everMembers.values { names[member.device.lowerText] = member.name }
        return names
    }
}
