// ConflictEvents: conflict events (found, settled) as they travel. Each is a record of kind `conflict` in an entry's
// content — sealed with the entry, inside its signature — whose body is the event's text as its author wrote it and
// the author's own ed25519 signature over it (label, group id, text), so a relay (a snapshot carries every event its
// writer holds) can pass it on but never alter or forge one. A receiver keeps an event only when its author is in the
// group, the signature verifies with the author's enrolled key, the record's stamp is the event's, and — for a revoked
// author — it was written within the revocation point; anything else is refused with a note naming entry and device.
// Older sshelf versions leave the kind out with a note (PeerChains.apply), as for any kind a newer version adds.
import FoundationEssentials
import ShelfCore
import ShelfStore
import ShelfVault

enum ConflictEvents {
    static let kind = RecordKind(rawValue: "conflict")
    static let label = Array("sshelf-conflict-event\0".utf8)

    static func message(_ text: String, group: UUID) -> [UInt8] {
        var writer = ByteWriter()
        writer.raw(label)
        writer.uuid(group)
        writer.raw(Array(text.utf8))
        return writer.bytes
    }

    static func record(_ event: ConflictEvent, text: String, signature: String) -> SyncRecord {
        let id = SyncCrypto.digest(Array(text.utf8))
        let uuid = UUID(
            uuid: (
                id[0], id[1], id[2], id[3], id[4], id[5], id[6], id[7], id[8], id[9], id[10], id[11], id[12], id[13],
                id[14], id[15]
            ))
        return SyncRecord(
            kind: kind, id: uuid, clock: .uniform(GroupStamp(stamp: event.stamp), kind: kind),
            body: ["e": .string(text), "s": .string(signature)])
    }

    /// This device's events not sent yet, signed for its entry `seq`, and (in a snapshot) every event it holds.
    static func outgoing(_ session: SyncSession, seq: Int64, snapshot: Bool) throws
        -> (records: [SyncRecord], signed: [StoredConflictEvent])
    {
        var signed: [StoredConflictEvent] = []
        for var event in try session.store.unpublishedConflictEvents() where event.author == session.meText {
            event.seq = seq
            let text = event.text
            let signature = session.keys.sign(message(text, group: session.state.group)).hex
            signed.append(StoredConflictEvent(event: event, text: text, signature: signature))
        }
        let relayed = snapshot ? try session.store.publishedConflictEvents() : []
        let records = (relayed + signed).map { record($0.event, text: $0.text, signature: $0.signature) }
        return (records, signed)
    }

    /// Checks and keeps the events in an entry from `writer` (its number `seq`); returns notes for those refused.
    /// Call inside `write`.
    static func receive(
        _ records: [SyncRecord], writer: String, seq: Int64, entryName: String, session: SyncSession, store: Store
    ) throws -> [String] {
        var notes: [String] = []
        for record in records {
            let refusal = try receive(record, writer: writer, seq: seq, session: session, store: store)
            if let refusal { notes.append("entry \(seq) from \(entryName) carries a conflict event \(refusal)") }
        }
        return notes
    }

    /// Why one event is refused (nil when it was kept, or known already).
    static func receive(_ record: SyncRecord, writer: String, seq: Int64, session: SyncSession, store: Store) throws
        -> String?
    {
        guard case .string(let text)? = record.body?["e"], case .string(let signatureHex)? = record.body?["s"],
            let event = ConflictEvent(text: text)
        else { return "that does not parse, refused" }
        let roster = session.roster
        let signer = "signed as \(event.author.prefix(8))"
        guard let author = UUID(uuidString: event.author), let member = roster.enrolled[author],
            !roster.isDisenrolled(author)
        else { return "\(signer), a device not in the group, refused" }
        guard let signature = [UInt8](hex: signatureHex),
            SyncCrypto.verify(signature, of: message(text, group: session.state.group), publicKey: member.signingKey)
        else { return "\(signer), refused: it does not verify with its signer's key (forged or altered)" }
        guard record.clock.groups.values.allSatisfy({ $0.stamp == event.stamp }), event.seq > 0,
            event.author != writer || event.seq <= seq
        else { return "\(signer), refused: its record does not match the event it carries (altered)" }
        if let revocation = roster.revoked[author], event.seq > revocation.upTo {
            return "\(signer), refused: written after its revocation"
        }
        try store.receiveConflictEvent(event, text: text, signature: signatureHex, at: session.now)
        return nil
    }
}
