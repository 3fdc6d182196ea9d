// StoreSync: what sync needs from the store — the device id, device-local settings, a clock stamp on every
// change (tombstones included), the local changes to send, and applying a remote record by last-writer-wins.
import Foundation
import ShelfCore

public enum ApplyOutcome: Equatable, Sendable {
    case applied
    /// The local copy is as new or newer; nothing changed.
    case kept
    case skipped(String)
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

    public func setting(_ key: String) throws -> String? {
        try db.query("SELECT value FROM settings WHERE key = ?", [.text(key)]) { $0.text(0) }.first
    }

    public func setSetting(_ key: String, _ value: String?) throws {
        if let value {
            try db.run("INSERT INTO settings(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                       [.text(key), .text(value)])
        } else {
            try db.run("DELETE FROM settings WHERE key = ?", [.text(key)])
        }
    }

    func newestStamp() throws -> ClockStamp? {
        try db.query("SELECT wall, counter, device FROM record_clock ORDER BY wall DESC, counter DESC, device DESC LIMIT 1") {
            ClockStamp(wall: Int64($0.int(0)), counter: $0.int(1), device: $0.text(2))
        }.first
    }

    /// Stamps a local change with the next clock value of this device.
    func stamp(_ kind: RecordKind, _ id: UUID, deleted: Bool) throws {
        let last = try lastStamp ?? newestStamp()
        let next = HybridLogicalClock.next(after: last, now: now(), device: try deviceID)
        try writeClock(kind, id, next, deleted: deleted)
        lastStamp = next
    }

    func writeClock(_ kind: RecordKind, _ id: UUID, _ stamp: ClockStamp, deleted: Bool) throws {
        try db.run("""
            INSERT INTO record_clock(kind, id, wall, counter, device, deleted) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT(kind, id) DO UPDATE SET wall=excluded.wall, counter=excluded.counter, device=excluded.device,
              deleted=excluded.deleted
            """, [.text(kind.rawValue), .text(id.storeText), .int(Int(stamp.wall)), .int(stamp.counter),
                  .text(stamp.device), .int(deleted ? 1 : 0)])
    }

    public func clock(_ kind: RecordKind, _ id: UUID) throws -> (stamp: ClockStamp, deleted: Bool)? {
        try db.query("SELECT wall, counter, device, deleted FROM record_clock WHERE kind = ? AND id = ?",
                     [.text(kind.rawValue), .text(id.storeText)]) {
            (ClockStamp(wall: Int64($0.int(0)), counter: $0.int(1), device: $0.text(2)), $0.int(3) != 0)
        }.first
    }

    /// Every record this device changed after `watermark`, oldest first, with its body (nil for tombstones).
    public func localChanges(after watermark: ClockStamp?) throws -> [SyncRecord] {
        let device = try deviceID
        let rows = try db.query("""
            SELECT kind, id, wall, counter, deleted FROM record_clock
            WHERE device = ? AND (wall > ? OR (wall = ? AND counter > ?)) ORDER BY wall, counter
            """, [.text(device), .int(Int(watermark?.wall ?? -1)), .int(Int(watermark?.wall ?? -1)), .int(watermark?.counter ?? -1)]) {
            ($0.text(0), $0.text(1), ClockStamp(wall: Int64($0.int(2)), counter: $0.int(3), device: device), $0.int(4) != 0)
        }
        var records: [SyncRecord] = []
        for (kindText, idText, stamp, deleted) in rows {
            guard let id = UUID(uuidString: idText) else { continue }
            let kind = RecordKind(rawValue: kindText)
            let body = deleted ? nil : try currentBody(kind, id)
            records.append(SyncRecord(kind: kind, id: id, stamp: stamp, deleted: deleted || body == nil, body: body))
        }
        return records
    }

    /// How many of this device's changes are stamped after `watermark` (not yet sent), without loading them.
    public func localChangeCount(after watermark: ClockStamp?) throws -> Int {
        try db.query("""
            SELECT count(*) FROM record_clock WHERE device = ? AND (wall > ? OR (wall = ? AND counter > ?))
            """, [.text(try deviceID), .int(Int(watermark?.wall ?? -1)), .int(Int(watermark?.wall ?? -1)),
                  .int(watermark?.counter ?? -1)]) { $0.int(0) }.first ?? 0
    }

    func currentBody(_ kind: RecordKind, _ id: UUID) throws -> [String: JSONValue]? {
        let key: [SQLValue] = [.text(id.storeText)]
        switch kind {
        case .group:
            return try db.query("SELECT \(GroupRow.columns) FROM host_groups WHERE id = ?", key, row: GroupRow.read)
                .compactMap { $0 }.first.map(SyncRecordCodec.body)
        case .host:
            return try host(id: id).map(SyncRecordCodec.body)
        case .identity:
            return try db.query("SELECT \(IdentityRow.columns) FROM identities WHERE id = ?", key, row: IdentityRow.read)
                .compactMap { $0 }.first.map(SyncRecordCodec.body)
        case .forward:
            return try db.query("SELECT \(ForwardRow.columns) FROM forward_rules WHERE id = ?", key, row: ForwardRow.read)
                .compactMap { $0 }.first.map(SyncRecordCodec.body)
        case .other:
            return nil
        }
    }

    /// Last writer wins: applies `record` when its stamp is newer than the local one, without stamping it anew.
    public func apply(_ record: SyncRecord) throws -> ApplyOutcome {
        guard record.kind.isKnown else { return .skipped("record kind '\(record.kind.rawValue)' is from a newer sshelf") }
        if let local = try clock(record.kind, record.id), local.stamp >= record.stamp { return .kept }
        if record.deleted {
            let table = ["group": "host_groups", "host": "hosts", "identity": "identities", "forward": "forward_rules"][record.kind.rawValue]!
            try db.run("DELETE FROM \(table) WHERE id = ?", [.text(record.id.storeText)])
        } else {
            guard let body = record.body else { return .skipped("record \(record.id) has no body") }
            do {
                switch record.kind {
                case .group:
                    var group = try SyncRecordCodec.decode(HostGroup.self, from: body)
                    group.id = record.id
                    try db.run(GroupRow.upsert, GroupRow.bindings(group))
                case .host:
                    var host = try SyncRecordCodec.decode(ShelfCore.Host.self, from: body)
                    host.id = record.id
                    try db.run(HostRow.upsert, HostRow.bindings(host))
                case .identity:
                    var identity = try SyncRecordCodec.decode(Identity.self, from: body)
                    identity.id = record.id
                    try db.run(IdentityRow.upsert, IdentityRow.bindings(identity))
                case .forward:
                    var rule = try SyncRecordCodec.decode(PortForwardRule.self, from: body)
                    rule.id = record.id
                    try db.run(ForwardRow.upsert, ForwardRow.bindings(rule))
                case .other:
                    return .skipped("unknown record kind")
                }
            } catch let error as DecodingError {
                return .skipped("record \(record.kind.rawValue) \(record.id.storeText) is malformed: \(error)")
            }
        }
        try writeClock(record.kind, record.id, record.stamp, deleted: record.deleted)
        lastStamp = HybridLogicalClock.receive(record.stamp, last: try lastStamp ?? newestStamp())
        return .applied
    }

    public func hasSeen(device: String, batch: String) throws -> Bool {
        try !db.query("SELECT 1 FROM sync_seen WHERE device = ? AND batch = ?", [.text(device), .text(batch)]) { $0.int(0) }.isEmpty
    }

    public func markSeen(device: String, batch: String) throws {
        try db.run("INSERT OR IGNORE INTO sync_seen(device, batch) VALUES (?, ?)", [.text(device), .text(batch)])
    }

    /// Everything that defines the synced state, in a canonical order: two devices that converged give equal
    /// values (tests compare these).
    public func syncedState() throws -> [String] {
        var lines: [String] = []
        for kind in RecordKind.knownCases {
            let ids = try db.query("SELECT id FROM record_clock WHERE kind = ? ORDER BY id", [.text(kind.rawValue)]) { $0.text(0) }
            for idText in ids {
                guard let id = UUID(uuidString: idText), let clock = try clock(kind, id) else { continue }
                let body = try currentBody(kind, id)
                let text = body.flatMap { try? String(decoding: ShelfJSON.encoder().encode($0), as: UTF8.self) } ?? "deleted"
                lines.append("\(kind.rawValue) \(idText) \(clock.stamp) \(text)")
            }
        }
        return lines
    }
}
