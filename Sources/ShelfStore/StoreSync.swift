// StoreSync: what sync needs from the store's records — the device id, device-local settings, a clock per field
// group on every change made here (tombstones included) with the change queued in the outbox, the records to
// send, and merging a record from another device by the field rules of ShelfCore's FieldMerge.
import FoundationEssentials
import ShelfCore

public enum ApplyOutcome: Equatable, Sendable {
    case applied
    /// The local copy already had everything; nothing visible changed.
    case kept
    case skipped(String)
}

/// A record as it was before a save, for finding which field groups the save changed.
struct PriorRecord {
    var clock: RecordClock
    var body: [String: JSONValue]?
}

extension Store {
    /// This store's device id: random, made once (by the migration that added sync), never synced.
    public var deviceID: String {
        get throws {
            if let cachedDeviceID { return cachedDeviceID }
            let id = try setting("device.id") ?? "unknown-device"
            cachedDeviceID = id
            return id
        }
    }

    /// The key exchange of each host's last session from this device (`KeyExchange.settingKey`).
    public func lastKeyExchanges() throws -> [UUID: String] {
        let prefix = KeyExchange.settingKey(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))).dropLast(36)
        let rows = try db.query(
            "SELECT key, value FROM settings WHERE substr(key, 1, ?) = ?", [.int(prefix.count), .text(String(prefix))]
        ) { row in (row.text(0), row.text(1)) }
        var found: [UUID: String] = [:]
        for (key, value) in rows {
            if let id = UUID(uuidString: String(key.dropFirst(prefix.count))) { found[id] = value }
        }
        return found
    }

    public func setting(_ key: String) throws -> String? {
        try db.query("SELECT value FROM settings WHERE key = ?", [.text(key)]) { $0.text(0) }.first
    }

    public func setSetting(_ key: String, _ value: String?) throws {
        if let value {
            try db.run(
                "INSERT INTO settings(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [.text(key), .text(value)])
        } else {
            try db.run("DELETE FROM settings WHERE key = ?", [.text(key)])
        }
    }

    func newestStamp() throws -> ClockStamp? {
        try db.query(
            "SELECT wall, counter, device FROM record_clock ORDER BY wall DESC, counter DESC, device DESC LIMIT 1"
        ) {
            ClockStamp(wall: Int64($0.int(0)), counter: $0.int(1), device: $0.text(2))
        }.first
    }

    func nextStamp() throws -> ClockStamp {
        let next = HybridLogicalClock.next(after: try lastStamp ?? newestStamp(), now: now(), device: try deviceID)
        lastStamp = next
        return next
    }

    static func table(_ kind: RecordKind) -> String? {
        [
            "group": "host_groups", "host": "hosts", "identity": "identities", "forward": "forward_rules",
            "snippet": "snippets", "ca-pin": "ca_pins",
        ][kind.rawValue]
    }

    // MARK: stamping changes made here

    /// Call before saving a record: its clock and body as they are now (nil for a record never stamped). A record
    /// deleted here or on another device cannot be saved again — deletion is final, so an edit would be lost.
    func priorForSave(_ kind: RecordKind, _ id: UUID) throws -> PriorRecord? {
        guard let clock = try clock(kind, id) else { return nil }
        if clock.isDeleted {
            throw StoreError(
                kind: .constraint,
                message: "this \(kind.rawValue) was deleted (here or on another device); it cannot be saved again",
                hint: "create a new one")
        }
        return PriorRecord(clock: clock, body: try rawBody(kind, id))
    }

    /// Stamps a save: a new record gets one stamp for every group; an edit stamps the groups it changed.
    func stampSave(_ kind: RecordKind, _ id: UUID, prior: PriorRecord?, body: () throws -> [String: JSONValue]) throws {
        guard let prior else {
            // A new record: one stamp for every group, which the empty clock text says (no clock to build: imports
            // of 100,000 hosts come through here).
            let stamp = try nextStamp()
            try db.run(
                """
                INSERT INTO record_clock(kind, id, wall, counter, device, deleted, clock) VALUES (?, ?, ?, ?, ?, 0, '')
                ON CONFLICT(kind, id) DO UPDATE SET wall=excluded.wall, counter=excluded.counter,
                device=excluded.device,
                  deleted=0, clock=''
                """,
                [
                    .text(kind.rawValue), .text(id.storeText), .int(Int(stamp.wall)), .int(stamp.counter),
                    .text(stamp.device),
                ])
            try queue(kind, id)
            return
        }
        let stamp = try nextStamp()
        guard
            let clock = FieldMerge.localEdit(
                kind: kind, old: prior.clock, oldBody: prior.body ?? [:], newBody: try body(), stamp: stamp)
        else { return }
        try writeClock(kind, id, clock)
        try queue(kind, id)
    }

    func stampDelete(_ kind: RecordKind, _ id: UUID) throws {
        let old = try clock(kind, id)
        if old?.isDeleted == true { return }
        try writeClock(kind, id, FieldMerge.localDelete(old: old, stamp: try nextStamp()))
        try queue(kind, id)
    }

    /// A save's body as the merge compares it (unchecked: the credential rule applies when it is sent).
    static func mergeBody<T: Encodable>(_ record: T) throws -> [String: JSONValue] {
        try SyncRecordCodec.plainBody(record)
    }

    private func queue(_ kind: RecordKind, _ id: UUID) throws {
        try db.run(
            "INSERT OR IGNORE INTO sync_outbox(kind, id) VALUES (?, ?)", [.text(kind.rawValue), .text(id.storeText)])
    }

    // MARK: clocks

    func writeClock(_ kind: RecordKind, _ id: UUID, _ clock: RecordClock) throws {
        let latest = clock.latest
        try db.run(
            """
            INSERT INTO record_clock(kind, id, wall, counter, device, deleted, clock) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(kind, id) DO UPDATE SET wall=excluded.wall, counter=excluded.counter, device=excluded.device,
              deleted=excluded.deleted, clock=excluded.clock
            """,
            [
                .text(kind.rawValue), .text(id.storeText), .int(Int(latest.wall)), .int(latest.counter),
                .text(latest.device), .int(clock.isDeleted ? 1 : 0), .text(clock.text(kind: kind)),
            ])
    }

    public func clock(_ kind: RecordKind, _ id: UUID) throws -> RecordClock? {
        try db.query(
            "SELECT wall, counter, device, deleted, clock FROM record_clock WHERE kind = ? AND id = ?",
            [.text(kind.rawValue), .text(id.storeText)]
        ) { row in
            RecordClock(
                text: row.text(4), kind: kind,
                latest: ClockStamp(wall: Int64(row.int(0)), counter: row.int(1), device: row.text(2)),
                deleted: row.int(3) != 0)
        }.first ?? nil
    }

    func history(_ kind: RecordKind, _ id: UUID) throws -> FieldHistory {
        let text =
            try db.query(
                "SELECT history FROM record_clock WHERE kind = ? AND id = ?",
                [.text(kind.rawValue), .text(id.storeText)]
            ) {
                $0.text(0)
            }.first ?? ""
        return FieldHistory(text: text, kind: kind)
    }

    func setHistory(_ kind: RecordKind, _ id: UUID, _ history: FieldHistory) throws {
        try db.run(
            "UPDATE record_clock SET history = ? WHERE kind = ? AND id = ?",
            [.text(history.text(kind: kind)), .text(kind.rawValue), .text(id.storeText)])
    }

    func rawBody(_ kind: RecordKind, _ id: UUID) throws -> [String: JSONValue]? {
        let key: [SQLValue] = [.text(id.storeText)]
        switch kind {
        case .group:
            return try db.query("SELECT \(GroupRow.columns) FROM host_groups WHERE id = ?", key, row: GroupRow.read)
                .compactMap { $0 }.first.map(Store.mergeBody)
        case .host:
            return try host(id: id).map(Store.mergeBody)
        case .identity:
            return try db.query(
                "SELECT \(IdentityRow.columns) FROM identities WHERE id = ?", key, row: IdentityRow.read
            )
            .compactMap { $0 }.first.map(Store.mergeBody)
        case .forward:
            return try db.query(
                "SELECT \(ForwardRow.columns) FROM forward_rules WHERE id = ?", key, row: ForwardRow.read
            )
            .compactMap { $0 }.first.map(Store.mergeBody)
        case .snippet:
            return try db.query(
                "SELECT \(SnippetRow.columns) FROM snippets WHERE id = ?", key, row: SnippetRow.reader()
            )
            .compactMap { $0 }.first.map(Store.mergeBody)
        case .caPin:
            return try db.query("SELECT \(CAPinRow.columns) FROM ca_pins WHERE id = ?", key, row: CAPinRow.read)
                .compactMap { $0 }.first.map(Store.mergeBody)
        case .other:
            return nil
        }
    }

    // MARK: what to send

    /// Local changes not sent yet.
    public func outboxCount() throws -> Int { try db.scalarInt("SELECT count(*) FROM sync_outbox") }

    /// The records changed here since the last entry, each with only the groups this device stamped (a delta names
    /// no other device's stamps); records whose body breaks the credential rule are left out with the reason.
    /// `idle` names the rows with nothing of this device's left to send (another device's later value or deletion
    /// replaced all of it): the caller takes them off, so a quiet device does not count a change for ever.
    public func outboxRecords() throws -> (records: [SyncRecord], refused: [String], idle: [(RecordKind, String)]) {
        let me = try deviceID
        let keys = try db.query("SELECT kind, id FROM sync_outbox ORDER BY kind, id") { ($0.text(0), $0.text(1)) }
        var records: [SyncRecord] = [], refused: [String] = [], idle: [(RecordKind, String)] = []
        for (kindText, idText) in keys {
            let kind = RecordKind(rawValue: kindText)
            guard let id = UUID(uuidString: idText), let clock = try clock(kind, id) else {
                idle.append((kind, idText))
                continue
            }
            if let tombstone = clock.tombstone {
                if tombstone.stamp.device == me {
                    records.append(SyncRecord(kind: kind, id: id, clock: clock, body: nil))
                } else {
                    idle.append((kind, idText))
                }
                continue
            }
            var mine = clock.groups.filter { $0.value.stamp.device == me }
            // A set group goes with this device's own adds and removes, whoever wrote its newest one.
            let sets = clock.sets.mapValues { $0.written(by: me) }.filter { !$0.value.isEmpty }
            for (name, set) in sets { mine[name] = set.stamp }
            for name in clock.sets.keys where sets[name] == nil { mine[name] = nil }
            guard !mine.isEmpty else {
                idle.append((kind, idText))
                continue
            }
            guard let full = try rawBody(kind, id) else { continue }
            var body: [String: JSONValue] = ["id": .string(idText)]
            for name in mine.keys { body.merge(FieldGroups.fields(of: name, kind: kind, in: full)) { $1 } }
            do { try SyncRecordCodec.checkReceived(body, kind: kind) } catch {
                refused.append("\(kind.rawValue) \(idText): \(error)")
                continue
            }
            records.append(SyncRecord(kind: kind, id: id, clock: RecordClock(groups: mine, sets: sets), body: body))
        }
        return (records, refused, idle)
    }

    /// Takes rows `outboxRecords` found nothing of this device's in off the outbox (unless this device changed the
    /// record since). Call inside `write`.
    public func clearIdleOutbox(_ idle: [(RecordKind, String)]) throws {
        let me = try deviceID
        for (kind, idText) in idle {
            if let id = UUID(uuidString: idText), let clock = try clock(kind, id),
                clock.tombstone?.stamp.device == me
                    || (clock.tombstone == nil && clock.latest(by: me) != .zero)
            {
                continue
            }
            try db.run("DELETE FROM sync_outbox WHERE kind = ? AND id = ?", [.text(kind.rawValue), .text(idText)])
        }
    }

    /// Takes records off the outbox once they are in an entry on the remote — unless they changed again meanwhile
    /// (another process edited them after the entry was built: they stay for the next one).
    /// `sent` holds each record's newest stamp by this device: another device's later value merged in since (it is
    /// then the record's newest stamp) is no change of this device's, and must not keep the record here for ever.
    public func clearOutbox(sent: [(RecordKind, UUID, ClockStamp)]) throws {
        let me = try deviceID
        for (kind, id, latest) in sent where try clock(kind, id)?.latest(by: me) ?? .zero <= latest {
            try db.run(
                "DELETE FROM sync_outbox WHERE kind = ? AND id = ?", [.text(kind.rawValue), .text(id.storeText)])
        }
    }

    /// Every record with its whole clock (tombstones and tainted groups included), for a snapshot.
    public func allRecords() throws -> (records: [SyncRecord], refused: [String]) {
        var records: [SyncRecord] = [], refused: [String] = []
        for kind in RecordKind.knownCases {
            guard let table = Store.table(kind) else { continue }
            var bodies: [String: [String: JSONValue]] = [:]
            switch kind {
            case .group:
                for group in try db.query("SELECT \(GroupRow.columns) FROM \(table)", row: GroupRow.read).compactMap({
                    $0
                }) {
                    bodies[group.id.storeText] = try Store.mergeBody(group)
                }
            case .host:
                for host in try db.query("SELECT \(HostRow.columns) FROM \(table)", row: HostRow.reader()).compactMap({
                    $0
                }
                ) {
                    bodies[host.id.storeText] = try Store.mergeBody(host)
                }
            case .identity:
                for identity in try db.query("SELECT \(IdentityRow.columns) FROM \(table)", row: IdentityRow.read)
                    .compactMap({ $0 })
                {
                    bodies[identity.id.storeText] = try Store.mergeBody(identity)
                }
            case .forward:
                for rule in try db.query("SELECT \(ForwardRow.columns) FROM \(table)", row: ForwardRow.read).compactMap(
                    { $0 })
                {
                    bodies[rule.id.storeText] = try Store.mergeBody(rule)
                }
            case .snippet:
                for snippet in try db.query("SELECT \(SnippetRow.columns) FROM \(table)", row: SnippetRow.reader())
                    .compactMap({ $0 })
                {
                    bodies[snippet.id.storeText] = try Store.mergeBody(snippet)
                }
            case .caPin:
                for pin in try db.query("SELECT \(CAPinRow.columns) FROM \(table)", row: CAPinRow.read).compactMap({
                    $0
                }) {
                    bodies[pin.id.storeText] = try Store.mergeBody(pin)
                }
            case .other:
                break
            }
            let rows = try db.query(
                "SELECT id, wall, counter, device, deleted, clock FROM record_clock WHERE kind = ? ORDER BY id",
                [.text(kind.rawValue)]
            ) { row in
                (
                    row.text(0),
                    RecordClock(
                        text: row.text(5), kind: kind,
                        latest: ClockStamp(wall: Int64(row.int(1)), counter: row.int(2), device: row.text(3)),
                        deleted: row.int(4) != 0)
                )
            }
            for (idText, parsed) in rows {
                guard let id = UUID(uuidString: idText), let clock = parsed else { continue }
                if clock.isDeleted {
                    records.append(SyncRecord(kind: kind, id: id, clock: clock, body: nil))
                    continue
                }
                guard let body = bodies[idText] else { continue }
                do { try SyncRecordCodec.checkReceived(body, kind: kind) } catch {
                    refused.append("\(kind.rawValue) \(idText): \(error)")
                    continue
                }
                records.append(SyncRecord(kind: kind, id: id, clock: clock, body: body))
            }
        }
        return (records, refused)
    }

    // MARK: merging

    /// Merges a record from another device (its clock already carries provenance and taint, see ShelfSync) by the
    /// field rules, without stamping it anew. Conflicts are recorded for `sync conflicts`. Call inside `write`.
    /// `localArrivedThisRun`: the record's local value itself came from another device earlier in the same sync run
    /// (a device catching up: newly enrolled, or long offline), so a conflict with it is between two values this
    /// device never showed — recorded as already seen (listed, not counted in the status line); the device whose
    /// edit lost records it unseen.
    public func apply(_ record: SyncRecord, from device: String, at time: Date, localArrivedThisRun: Bool = false)
        throws
        -> ApplyOutcome
    {
        guard record.kind.isKnown, let table = Store.table(record.kind) else {
            return .skipped("record kind '\(record.kind.rawValue)' is from a newer sshelf")
        }
        if let body = record.body {
            do { try SyncRecordCodec.checkReceived(body, kind: record.kind) } catch {
                return .skipped("\(record.kind.rawValue) \(record.id.storeText) refused: \(error)")
            }
        }
        let localClock = try clock(record.kind, record.id)
        if let localClock,
            let known = FieldMerge.alreadyKnown(local: localClock, incoming: record.clock, kind: record.kind)
        {
            if known != localClock { try writeClock(record.kind, record.id, known) }
            return .kept
        }
        let local = try localClock.map { ($0, $0.isDeleted ? nil : try rawBody(record.kind, record.id)) }
        let history = localClock == nil ? FieldHistory() : try self.history(record.kind, record.id)
        guard
            let result = FieldMerge.merge(
                kind: record.kind, local: local, history: history, incoming: record.clock, body: record.body)
        else { return .kept }
        if result.changed {
            if let body = result.body {
                var full = body
                full["id"] = .string(record.id.storeText)
                if let failure = try storeBody(record.kind, full) { return .skipped(failure) }
            } else {
                try db.run("DELETE FROM \(table) WHERE id = ?", [.text(record.id.storeText)])
            }
        }
        if result.clock != localClock { try writeClock(record.kind, record.id, result.clock) }
        if result.history != history { try setHistory(record.kind, record.id, result.history) }
        let name =
            (result.body ?? local?.1 ?? record.body)?["name"].flatMap {
                if case .string(let text) = $0 { text } else { nil }
            } ?? ""
        for conflict in result.conflicts {
            try recordConflict(
                conflict, kind: record.kind, id: record.id, name: name, at: time, seen: localArrivedThisRun)
        }
        lastStamp = HybridLogicalClock.receive(result.clock.latest, last: try lastStamp ?? newestStamp())
        return result.changed ? .applied : .kept
    }

    /// Writes a record's row from its merged body (fields it lacks take their defaults); the reason when the body
    /// does not make a record of its kind.
    func storeBody(_ kind: RecordKind, _ body: [String: JSONValue]) throws -> String? {
        do {
            switch kind {
            case .group:
                try db.run(GroupRow.upsert, GroupRow.bindings(try SyncRecordCodec.decode(HostGroup.self, from: body)))
            case .host:
                try db.run(
                    HostRow.upsert, HostRow.bindings(try SyncRecordCodec.decode(ShelfCore.Host.self, from: body)))
            case .identity:
                try db.run(
                    IdentityRow.upsert, IdentityRow.bindings(try SyncRecordCodec.decode(Identity.self, from: body)))
            case .forward:
                try db.run(
                    ForwardRow.upsert, ForwardRow.bindings(try SyncRecordCodec.decode(PortForwardRule.self, from: body))
                )
            case .snippet:
                try db.run(SnippetRow.upsert, SnippetRow.bindings(try SyncRecordCodec.decode(Snippet.self, from: body)))
            case .caPin:
                try db.run(CAPinRow.upsert, CAPinRow.bindings(try SyncRecordCodec.decode(CAPin.self, from: body)))
            case .other: return "unknown record kind"
            }
        } catch let error as DecodingError {
            return "\(kind.rawValue) \(body["id"].map { "\($0)" } ?? "") is malformed: \(error)"
        }
        return nil
    }

    /// Once `device` is known to be revoked after its entry `upTo`: undoes what came from it after that (or only
    /// through devices that did not know) — giving back what this device had before, or erasing — and forgets records
    /// nothing else holds up, each noted as a conflict. Returns how many records changed. Call inside `write`.
    public func taint(device: String, upTo: Int64, at time: Date) throws -> Int {
        var changed = 0
        for kind in RecordKind.knownCases {
            guard let table = Store.table(kind) else { continue }
            let rows = try db.query(
                """
                SELECT id, wall, counter, device, deleted, clock FROM record_clock WHERE kind = ? AND (device = ? OR
                clock LIKE ?)
                """, [.text(kind.rawValue), .text(device), .text("%@" + device + "%")]
            ) { row in
                (
                    row.text(0),
                    RecordClock(
                        text: row.text(5), kind: kind,
                        latest: ClockStamp(wall: Int64(row.int(1)), counter: row.int(2), device: row.text(3)),
                        deleted: row.int(4) != 0)
                )
            }
            for (idText, parsed) in rows {
                guard let id = UUID(uuidString: idText), let clock = parsed else { continue }
                let body = clock.isDeleted ? nil : try rawBody(kind, id)
                let name = body?["name"].flatMap { if case .string(let text) = $0 { text } else { nil } } ?? ""
                switch FieldMerge.taint(
                    kind: kind, clock, body: body, history: try history(kind, id), device: device, upTo: upTo)
                {
                case .unchanged:
                    continue
                case .forget:
                    try db.run("DELETE FROM \(table) WHERE id = ?", [.text(idText)])
                    try db.run(
                        "DELETE FROM record_clock WHERE kind = ? AND id = ?", [.text(kind.rawValue), .text(idText)])
                    try recordConflict(
                        FieldConflict(
                            group: clock.isDeleted ? "deleted" : "record", kept: "(removed)", keptBy: "",
                            lost: clock.isDeleted ? "(deleted)" : "(the record)", lostBy: device, why: .revoked),
                        kind: kind, id: id, name: name, at: time)
                case .update(let restored, let restoredBody, let history, let groups):
                    for group in groups {
                        let kept =
                            group != "deleted"
                            ? (restored.group(group).stamp == .zero
                                ? "(erased)"
                                : FieldGroups.text(of: group, kind: kind, in: restoredBody))
                            : restored.isDeleted ? "(deleted)" : "(restored)"
                        let by =
                            group == "deleted"
                            ? (restored.tombstone?.stamp.device ?? "") : restored.group(group).stamp.device
                        try recordConflict(
                            FieldConflict(
                                group: group, kept: kept, keptBy: by,
                                lost: group == "deleted"
                                    ? "(deleted)" : FieldGroups.text(of: group, kind: kind, in: body),
                                lostBy: device, why: .revoked), kind: kind, id: id, name: name, at: time)
                    }
                    if restored.isDeleted {
                        try db.run("DELETE FROM \(table) WHERE id = ?", [.text(idText)])
                    } else {
                        var full = restoredBody
                        full["id"] = .string(idText)
                        if let failure = try storeBody(kind, full) {
                            throw StoreError(kind: .other, message: failure, hint: nil)
                        }
                    }
                    try writeClock(kind, id, restored)
                    try setHistory(kind, id, history)
                }
                changed += 1
            }
        }
        return changed
    }

    /// Everything that defines the synced state, in a canonical order: devices that converged give equal values
    /// (tests compare these). Provenance, which is this device's own bookkeeping, is left out.
    public func syncedState() throws -> [String] {
        var lines: [String] = []
        for record in try allRecords().records.sorted(by: {
            ($0.kind.rawValue, $0.id.storeText) < ($1.kind.rawValue, $1.id.storeText)
        }) {
            var body = record.body
            body?["id"] = nil
            let text =
                body.flatMap { try? String(decoding: ShelfJSON.encoder().encode($0), as: UTF8.self) } ?? "deleted"
            lines.append(
                "\(record.kind.rawValue) \(record.id.storeText) "
                    + "\(record.clock.text(kind: record.kind, keepVia: false)) \(text)")
        }
        return lines
    }
}
