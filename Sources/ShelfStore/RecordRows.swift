// RecordRows: how each model record maps to its table row and back. Unknown fields ride in `extra` (JSON,
// empty when there are none, so the common case costs no JSON work at 100,000 rows).
import FoundationEssentials
import ShelfCore

enum ExtraFields {
    static func encode(_ extra: [String: JSONValue]) -> String {
        guard !extra.isEmpty, let data = try? ShelfJSON.encoder().encode(extra) else { return "" }
        return String(decoding: data, as: UTF8.self)
    }

    static func decode(_ text: String) -> [String: JSONValue] {
        guard !text.isEmpty else { return [:] }
        return (try? JSONDecoder().decode([String: JSONValue].self, from: Data(text.utf8))) ?? [:]
    }
}

/// A host's option lines in their column: a JSON array of strings, or empty when there are none (most hosts; no JSON
/// work then). JSON rather than a separator: a line that came by sync is stored exactly as it came, whatever it holds,
/// and validation (not the storage format) decides what is written to a config.
public enum OptionLines {
    public static func encode(_ lines: [String]) -> String {
        guard !lines.isEmpty, let data = try? ShelfJSON.encoder().encode(lines) else { return "" }
        return String(decoding: data, as: UTF8.self)
    }

    public static func decode(_ text: String) -> [String] {
        guard !text.isEmpty else { return [] }
        return (try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? []
    }
}

enum HostRow {
    // Tags cannot contain control characters, so U+001F separates them without escaping.
    static func joinTags(_ tags: [String]) -> String { tags.joined(separator: "\u{1F}") }
    static func splitTags(_ text: String) -> [String] {
        text.isEmpty ? [] : text.split(separator: "\u{1F}", omittingEmptySubsequences: true).map(String.init)
    }

    static let columns = """
        id, name, hostname, port, user, group_id, tags, auth_method, identity_id, password_ref, jump_host_ids, \
        unresolved_jump, pinned_key_type, pinned_key, notes, created_at, updated_at, last_connected_at, extra, \
        options, aliases, pq
        """

    static let upsert = """
        INSERT INTO hosts(\(columns)) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
        ON CONFLICT(id) DO UPDATE SET name=excluded.name, hostname=excluded.hostname, port=excluded.port,
          user=excluded.user, group_id=excluded.group_id, tags=excluded.tags, auth_method=excluded.auth_method,
          identity_id=excluded.identity_id, password_ref=excluded.password_ref, jump_host_ids=excluded.jump_host_ids,
          unresolved_jump=excluded.unresolved_jump, pinned_key_type=excluded.pinned_key_type,
          pinned_key=excluded.pinned_key, notes=excluded.notes, created_at=excluded.created_at,
          updated_at=excluded.updated_at, last_connected_at=excluded.last_connected_at, extra=excluded.extra,
          options=excluded.options, aliases=excluded.aliases, pq=excluded.pq
        """

    /// A new row only (a bulk insert of hosts never saved): an existing id is a constraint error, not an update.
    static let insert = "INSERT INTO hosts(\(columns)) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"

    static func bindings(_ host: Host) -> [SQLValue] {
        [
            .text(host.id.storeText), .text(host.name), .text(host.hostname), .int(host.port), .text(host.user),
            .optional(host.groupID), .text(joinTags(host.tags)), .text(host.authMethod.rawValue),
            .optional(host.identityID), .optional(host.passwordRef?.rawValue),
            .text(host.jumpHostIDs.map(\.storeText).joined(separator: " ")), .text(host.unresolvedJump),
            .optional(host.pinnedHostKey?.type), .optional(host.pinnedHostKey?.key), .text(host.notes),
            .double(host.createdAt.timeIntervalSince1970), .double(host.updatedAt.timeIntervalSince1970),
            .optional(host.lastConnectedAt), .text(ExtraFields.encode(host.extra)),
            .text(OptionLines.encode(host.options)),
            .text(joinTags(host.aliases)), .text(host.pq.storeText),
        ]
    }

    static func read(_ row: Statement) -> Host? {
        guard let id = row.uuid(0) else { return nil }
        var pinned: PinnedHostKey? = nil
        if let type = row.optionalText(12), let key = row.optionalText(13) {
            pinned = PinnedHostKey(type: type, key: key)
        }
        return Host(
            id: id, name: row.text(1), hostname: row.text(2), port: row.int(3), user: row.text(4), groupID: row.uuid(5),
            tags: splitTags(row.text(6)), authMethod: AuthMethod(rawValue: row.text(7)), identityID: row.uuid(8),
            // A value in the reference column that is not a reference is dropped, never handed on as a secret.
            passwordRef: row.optionalText(9).flatMap(ReferenceKey.init),
            jumpHostIDs: row.text(10).split(separator: " ").compactMap { UUID(uuidString: String($0)) },
            unresolvedJump: row.text(11), pinnedHostKey: pinned, options: OptionLines.decode(row.text(19)),
            notes: row.text(14), createdAt: row.date(15), updatedAt: row.date(16),
            lastConnectedAt: row.optionalDate(17),
            aliases: splitTags(row.text(20)), pq: PostQuantumSetting(storeText: row.text(21)),
            extra: ExtraFields.decode(row.text(18)))
    }
}

enum GroupRow {
    static let columns = "id, name, parent_id, sort_order, notes, updated_at, extra"
    static let upsert = """
        INSERT INTO host_groups(\(columns)) VALUES (?,?,?,?,?,?,?)
        ON CONFLICT(id) DO UPDATE SET name=excluded.name, parent_id=excluded.parent_id,
          sort_order=excluded.sort_order, notes=excluded.notes, updated_at=excluded.updated_at, extra=excluded.extra
        """

    /// A group's `pq` setting rides in its `extra` column (JSON, beside fields a newer version wrote): groups are few,
    /// read whole, and a group row keeps the shape every schema version had.
    static let pqField = "pq"

    static func bindings(_ group: HostGroup) -> [SQLValue] {
        var extra = group.extra
        if group.pq != .off { extra[pqField] = .string(group.pq.rawValue) }
        return [
            .text(group.id.storeText), .text(group.name), .optional(group.parentID), .int(group.sortOrder),
            .text(group.notes), .double(group.updatedAt.timeIntervalSince1970), .text(ExtraFields.encode(extra)),
        ]
    }

    static func read(_ row: Statement) -> HostGroup? {
        guard let id = row.uuid(0) else { return nil }
        var extra = ExtraFields.decode(row.text(6))
        // Anything but a string is a value this version does not know: it asks for at least require.
        let pq: PostQuantumSetting =
            switch extra.removeValue(forKey: pqField) {
            case nil: .off
            case .string(let raw)?: PostQuantumSetting(rawValue: raw)
            case _?: .require
            }
        return HostGroup(
            id: id, name: row.text(1), parentID: row.uuid(2), sortOrder: row.int(3), notes: row.text(4),
            updatedAt: row.date(5), pq: pq, extra: extra)
    }
}

enum IdentityRow {
    static let columns = """
        id, name, key_type, public_key, private_key_ref, passphrase_ref, key_file, updated_at, extra, \
        confirm_each_use, agent_lifetime, only_to
        """
    static let upsert = """
        INSERT INTO identities(\(columns)) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)
        ON CONFLICT(id) DO UPDATE SET name=excluded.name, key_type=excluded.key_type,
          public_key=excluded.public_key, private_key_ref=excluded.private_key_ref,
          passphrase_ref=excluded.passphrase_ref, key_file=excluded.key_file, updated_at=excluded.updated_at,
          extra=excluded.extra, confirm_each_use=excluded.confirm_each_use, agent_lifetime=excluded.agent_lifetime,
          only_to=excluded.only_to
        """

    static func bindings(_ identity: Identity) -> [SQLValue] {
        [
            .text(identity.id.storeText), .text(identity.name), .text(identity.keyType.rawValue),
            .text(identity.publicKey),
            .optional(identity.privateKeyRef?.rawValue), .optional(identity.passphraseRef?.rawValue),
            .text(identity.keyFile), .double(identity.updatedAt.timeIntervalSince1970),
            .text(ExtraFields.encode(identity.extra)), .int(identity.confirmEachUse ? 1 : 0),
            .int(identity.agentLifetime),
            .text(HostRow.joinTags(identity.onlyTo.map(\.description))),
        ]
    }

    static func read(_ row: Statement) -> Identity? {
        guard let id = row.uuid(0) else { return nil }
        return Identity(
            id: id, name: row.text(1), keyType: KeyType(rawValue: row.text(2)), publicKey: row.text(3),
            privateKeyRef: row.optionalText(4).flatMap(ReferenceKey.init),
            passphraseRef: row.optionalText(5).flatMap(ReferenceKey.init), keyFile: row.text(6),
            confirmEachUse: row.int(9) != 0, agentLifetime: row.int(10),
            onlyTo: HostRow.splitTags(row.text(11)).map(KeyDestination.init(text:)), updatedAt: row.date(7),
            extra: ExtraFields.decode(row.text(8)))
    }
}

enum ForwardRow {
    static let columns = """
        id, host_id, name, kind, bind_address, bind_port, target_host, target_port, autostart, enabled, updated_at, \
        extra, sessions
        """
    static let upsert = """
        INSERT INTO forward_rules(\(columns)) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)
        ON CONFLICT(id) DO UPDATE SET host_id=excluded.host_id, name=excluded.name, kind=excluded.kind,
          bind_address=excluded.bind_address, bind_port=excluded.bind_port, target_host=excluded.target_host,
          target_port=excluded.target_port, autostart=excluded.autostart, enabled=excluded.enabled,
          updated_at=excluded.updated_at, extra=excluded.extra, sessions=excluded.sessions
        """

    static func bindings(_ rule: PortForwardRule) -> [SQLValue] {
        [
            .text(rule.id.storeText), .optional(rule.hostID), .text(rule.name), .text(rule.kind.rawValue),
            .text(rule.bindAddress), .int(rule.bindPort), .text(rule.targetHost), .int(rule.targetPort),
            .int(rule.autostart ? 1 : 0), .int(rule.enabled ? 1 : 0), .double(rule.updatedAt.timeIntervalSince1970),
            .text(ExtraFields.encode(rule.extra)), .int(rule.sessions),
        ]
    }

    static func read(_ row: Statement) -> PortForwardRule? {
        guard let id = row.uuid(0) else { return nil }
        return PortForwardRule(
            id: id, hostID: row.uuid(1), name: row.text(2), kind: ForwardKind(rawValue: row.text(3)),
            bindAddress: row.text(4), bindPort: row.int(5), targetHost: row.text(6),
            targetPort: row.int(7), autostart: row.int(8) != 0, enabled: row.int(9) != 0,
            sessions: row.int(12), updatedAt: row.date(10), extra: ExtraFields.decode(row.text(11)))
    }
}

enum SnippetRow {
    static let columns = "id, name, command, tags, updated_at, extra"
    static let upsert = """
        INSERT INTO snippets(\(columns)) VALUES (?,?,?,?,?,?)
        ON CONFLICT(id) DO UPDATE SET name=excluded.name, command=excluded.command, tags=excluded.tags,
          updated_at=excluded.updated_at, extra=excluded.extra
        """

    static func bindings(_ snippet: Snippet) -> [SQLValue] {
        [
            .text(snippet.id.storeText), .text(snippet.name), .text(snippet.command),
            .text(HostRow.joinTags(snippet.tags)), .double(snippet.updatedAt.timeIntervalSince1970),
            .text(ExtraFields.encode(snippet.extra)),
        ]
    }

    static func read(_ row: Statement) -> Snippet? {
        guard let id = row.uuid(0) else { return nil }
        return Snippet(
            id: id, name: row.text(1), command: row.text(2), tags: HostRow.splitTags(row.text(3)),
            updatedAt: row.date(4), extra: ExtraFields.decode(row.text(5)))
    }
}
