// The merge rules and the roster rules as pure functions: field merge is commutative, associative and idempotent
// over random histories (so delivery order cannot matter); a deletion is final; a revoked device's late values are
// never taken and are erased where they were; record clocks have one canonical text. The roster accepts only what
// chains to its genesis: a forged addition enrolls nobody, a revoked device's later additions do not count unless its
// revoker kept them, a revocation from any device ever enrolled is final, and an epoch a revoked device holds is never
// written under.
import Foundation
import ShelfCore
@testable import ShelfSync
import ShelfVault
import XCTest

final class MergeRuleTests: XCTestCase {
    let devices = [
        "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222",
        "33333333-3333-4333-8333-333333333333",
    ]

    /// A random version of one host: some groups changed by some device at some time.
    func version(_ random: inout SplitMix64, base: [String: JSONValue]) -> (RecordClock, [String: JSONValue]) {
        var body = base
        var clock = RecordClock()
        for name in FieldGroups.names(for: .host) {
            let device = devices[Int.random(in: 0..<3, using: &random)]
            let wall = Int64.random(in: 1...20, using: &random)
            var stamp = GroupStamp(stamp: ClockStamp(wall: wall, counter: 0, device: device))
            // A stamp names one write: what it was built on goes with it. Taint is how a copy arrived, so it may
            // differ.
            if wall % 2 == 0 { stamp.base = ClockStamp(wall: wall - 1, counter: 0, device: devices[0]) }
            stamp.tainted = Int.random(in: 0..<8, using: &random) == 0
            clock.groups[name] = stamp
            for field in FieldGroups.fields(of: name, kind: .host, in: base).keys {
                // Values follow the stamp: two copies with one stamp always agree.
                body[field] = .string("\(name)-\(device)-\(wall)")
            }
        }
        if Int.random(in: 0..<10, using: &random) == 0 {
            return (
                RecordClock(
                    tombstone: GroupStamp(
                        stamp: ClockStamp(
                            wall: Int64.random(in: 1...20, using: &random), counter: 1,
                            device: devices[Int.random(in: 0..<3, using: &random)]))), [:]
            )
        }
        return (clock, body)
    }

    func merged(_ order: [(RecordClock, [String: JSONValue])]) -> String {
        var local: (clock: RecordClock, body: [String: JSONValue]?)?
        for (clock, body) in order {
            // The store's shortcut must agree with the merge: "already known" means merging changes nothing.
            if let known = local,
                let shortcut = FieldMerge.alreadyKnown(local: known.clock, incoming: clock, kind: .host)
            {
                let again = FieldMerge.merge(
                    kind: .host, local: known, incoming: clock, body: clock.isDeleted ? nil : body)
                XCTAssertEqual(again?.clock, shortcut)
                XCTAssertEqual(again?.body, known.body)
            }
            guard
                let result = FieldMerge.merge(
                    kind: .host, local: local, incoming: clock, body: clock.isDeleted ? nil : body)
            else { continue }
            local = (result.clock, result.body)
        }
        guard let local else { return "absent" }
        let body = local.body.map { try? String(decoding: ShelfJSON.encoder().encode($0), as: UTF8.self) } ?? "deleted"
        return local.clock.text(kind: .host, keepVia: false) + " " + (body ?? "?")
    }

    /// Every field this version knows has its own group: `extra` is only for fields a newer sshelf added, so a field
    /// added to a model without a group here would merge with every unknown field as one.
    func testEveryKnownFieldHasAGroup() throws {
        var host = ShelfCore.Host(name: "h", hostname: "h.example")
        host.extra = [:]
        var identity = Identity(name: "i")
        identity.extra = [:]
        var rule = PortForwardRule(kind: .local, bindPort: 1, targetHost: "t", targetPort: 2)
        rule.extra = [:]
        var group = HostGroup(name: "g")
        group.extra = [:]
        let bodies: [(RecordKind, [String: JSONValue])] = [
            (.host, try SyncRecordCodec.body(host)), (.identity, try SyncRecordCodec.body(identity)),
            (.forward, try SyncRecordCodec.body(rule)), (.group, try SyncRecordCodec.body(group)),
        ]
        for (kind, body) in bodies {
            XCTAssertEqual(
                FieldGroups.fields(of: FieldGroups.extra, kind: kind, in: body).keys.sorted(), [], "\(kind.rawValue)")
            let named = FieldGroups.groups(for: kind).flatMap(\.fields)
            XCTAssertEqual(named.count, Set(named).count, "\(kind.rawValue): a field in two groups")
        }
    }

    func testMergeIgnoresOrderAndDuplicates() throws {
        let base = try JSONDecoder().decode(
            [String: JSONValue].self, from: try ShelfJSON.encoder().encode(ShelfCore.Host(name: "h", hostname: "x")))
        var random = SplitMix64(state: 42)
        for _ in 0..<150 {
            let versions = (0..<4).map { _ in version(&random, base: base) }
            let reference = merged(versions)
            for _ in 0..<4 {
                var shuffled = versions + [versions[Int.random(in: 0..<4, using: &random)]]
                shuffled.shuffle(using: &random)
                XCTAssertEqual(merged(shuffled), reference)
            }
        }
    }

    func testDeletionIsFinalAndLateValuesOfARevokedDeviceCountForNothing() throws {
        let body: [String: JSONValue] = ["name": .string("web"), "hostname": .string("real")]
        let old = RecordClock.uniform(
            GroupStamp(stamp: ClockStamp(wall: 1, counter: 0, device: devices[0])), kind: .host)
        let tombstone = RecordClock(
            tombstone: GroupStamp(stamp: ClockStamp(wall: 2, counter: 0, device: devices[1]), base: old.latest))
        var later = old
        later.groups["endpoint"] = GroupStamp(
            stamp: ClockStamp(wall: 9, counter: 0, device: devices[2]), base: old.groups["endpoint"]?.stamp)
        let deleted = try XCTUnwrap(FieldMerge.merge(kind: .host, local: (tombstone, nil), incoming: later, body: body))
        XCTAssertNil(deleted.body, "a later edit does not resurrect")
        XCTAssertEqual(deleted.conflicts.map(\.why), [.deleted], "and it is reported")

        // A value from a revoked device after its revocation point is never taken...
        var tainted = old
        tainted.groups["endpoint"] = GroupStamp(
            stamp: ClockStamp(wall: 9, counter: 0, device: devices[2]), tainted: true)
        let evil = body.merging(["hostname": .string("evil")]) { $1 }
        let kept = try XCTUnwrap(FieldMerge.merge(kind: .host, local: (old, body), incoming: tainted, body: evil))
        XCTAssertEqual(kept.body?["hostname"], .string("real"), "however new it is")
        XCTAssertFalse(kept.changed)
        XCTAssertNil(
            FieldMerge.merge(
                kind: .host, local: nil,
                incoming: RecordClock.uniform(GroupStamp(stamp: old.latest, tainted: true), kind: .host),
                body: evil), "a record known only from such values is not taken")
        let fresh = try XCTUnwrap(FieldMerge.merge(kind: .host, local: nil, incoming: tainted, body: evil))
        XCTAssertNil(fresh.body?["hostname"], "a record taken for its other values leaves such a value out")
        XCTAssertEqual(fresh.clock.group("endpoint"), .absent)

        // ... and is undone where it was taken before the revocation was known: what this device had comes back (or
        // the group is erased); what came from the revoked device's own entries up to its revocation point, or through
        // a device that vouched for it, stays.
        let late = GroupStamp(stamp: ClockStamp(wall: 9, counter: 0, device: devices[2]), via: 12)
        let overwritten = try XCTUnwrap(
            FieldMerge.merge(
                kind: .host, local: (old, body),
                incoming: {
                    var clock = old
                    clock.groups["endpoint"] = late
                    return clock
                }(), body: evil))
        XCTAssertEqual(overwritten.body?["hostname"], .string("evil"), "taken before anybody knew")
        XCTAssertEqual(
            overwritten.history.groups["endpoint"]?.fields["hostname"], .string("real"), "what it replaced is kept here"
        )
        guard
            case .update(let undone, let undoneBody, _, let groups) = FieldMerge.taint(
                kind: .host, overwritten.clock, body: overwritten.body, history: overwritten.history,
                device: devices[2], upTo: 10)
        else {
            return XCTFail("expected an undo")
        }
        XCTAssertEqual(groups, ["endpoint"])
        XCTAssertEqual(undoneBody["hostname"], .string("real"))
        XCTAssertEqual(undone.group("endpoint"), old.group("endpoint"))
        XCTAssertEqual(
            FieldMerge.taint(
                kind: .host, overwritten.clock, body: overwritten.body, history: overwritten.history,
                device: devices[2], upTo: 12), .unchanged, "within the revocation point it stands")

        var applied = old
        applied.groups["user"] = GroupStamp(stamp: ClockStamp(wall: 3, counter: 0, device: devices[2]), via: 4)
        applied.groups["notes"] = GroupStamp(
            stamp: ClockStamp(wall: 4, counter: 0, device: devices[2]), via: GroupStamp.relayed)
        applied.groups["tags"] = GroupStamp(
            stamp: ClockStamp(wall: 5, counter: 0, device: devices[2]), via: GroupStamp.vouched)
        guard
            case .update(let erased, _, _, let erasedGroups) = FieldMerge.taint(
                kind: .host, applied, body: body, history: FieldHistory(),
                device: devices[2], upTo: 10)
        else {
            return XCTFail("expected an erasure")
        }
        XCTAssertEqual(
            erasedGroups, ["notes"], "a relay from a device that did not know is undone; nothing was before it here")
        XCTAssertEqual(erased.group("notes"), GroupStamp.absent)
        XCTAssertEqual(erased.group("user").stamp.wall, 3)
        XCTAssertEqual(
            FieldMerge.taint(kind: .host, applied, body: body, history: FieldHistory(), device: devices[1], upTo: 10),
            .unchanged)
        XCTAssertEqual(
            FieldMerge.taint(
                kind: .host, RecordClock.uniform(late, kind: .host), body: body, history: FieldHistory(),
                device: devices[2], upTo: 10), .forget, "a record only the late values hold up is forgotten")

        // A late deletion is undone: the record comes back as this device had it.
        let lateDelete = RecordClock(tombstone: late)
        let deletedHere = try XCTUnwrap(
            FieldMerge.merge(kind: .host, local: (old, body), incoming: lateDelete, body: nil))
        XCTAssertNil(deletedHere.body)
        guard
            case .update(let back, let backBody, _, _) = FieldMerge.taint(
                kind: .host, deletedHere.clock, body: nil, history: deletedHere.history,
                device: devices[2], upTo: 10)
        else {
            return XCTFail("expected the record back")
        }
        XCTAssertEqual(back, old)
        XCTAssertEqual(backBody, body)
        // Kept apart from its row, a record's history survives the store's text form (one stamp for every group
        // included, which the row's own clock writes as nothing).
        XCTAssertEqual(FieldHistory(text: deletedHere.history.text(kind: .host), kind: .host), deletedHere.history)
        XCTAssertEqual(
            FieldMerge.taint(kind: .host, lateDelete, body: nil, history: FieldHistory(), device: devices[2], upTo: 10),
            .forget)
        // A late deletion that replaced this device's own (earlier) deletion gives it back.
        let ownDelete = RecordClock(tombstone: GroupStamp(stamp: ClockStamp(wall: 2, counter: 0, device: devices[0])))
        let replaced = try XCTUnwrap(
            FieldMerge.merge(kind: .host, local: (ownDelete, nil), incoming: lateDelete, body: nil))
        XCTAssertEqual(replaced.clock, lateDelete, "the later deletion is the one kept")
        guard
            case .update(let again, _, _, _) = FieldMerge.taint(
                kind: .host, replaced.clock, body: nil, history: replaced.history,
                device: devices[2], upTo: 10)
        else {
            return XCTFail("expected the earlier deletion back")
        }
        XCTAssertEqual(again, ownDelete)
        XCTAssertEqual(FieldHistory(text: replaced.history.text(kind: .host), kind: .host), replaced.history)
    }

    func testClockTextIsCanonical() throws {
        let stamp = GroupStamp(
            stamp: ClockStamp(wall: 5, counter: 2, device: devices[0]),
            base: ClockStamp(wall: 4, counter: 0, device: devices[1]),
            via: 7, tainted: true)
        var clock = RecordClock.uniform(
            GroupStamp(stamp: ClockStamp(wall: 3, counter: 0, device: devices[2]), via: 2), kind: .host)
        clock.groups["user"] = stamp
        let text = clock.text(kind: .host)
        XCTAssertEqual(RecordClock(text: text, kind: .host, latest: .zero, deleted: false), clock)
        XCTAssertEqual(clock.text(kind: .host), text)
        XCTAssertFalse(clock.text(kind: .host, keepVia: false).contains("#"), "provenance stays on this device")
        XCTAssertEqual(
            RecordClock(text: "", kind: .host, latest: stamp.stamp, deleted: false),
            RecordClock.uniform(GroupStamp(stamp: stamp.stamp), kind: .host))
        for bad in ["*=", "*=1.2", "x", "*=1.2@a b", "*=a.b@c", "*=1.2@d#x", "*=-1.0@d"] {
            XCTAssertNil(RecordClock(text: bad, kind: .host, latest: .zero, deleted: false), bad)
        }
    }

    // MARK: roster

    struct Member {
        let id = UUID()
        let keys: SyncCrypto.DeviceKeys
        init() throws { keys = try XCTUnwrap(SyncCrypto.DeviceKeys(seed: SyncCrypto.randomKey())) }
    }

    func testRosterAcceptsOnlyWhatChainsToItsGenesis() throws {
        let group = UUID()
        let founder = try Member(), second = try Member(), stranger = try Member()
        let genesis = Certificate(
            group: group, signer: founder.id, time: 1,
            body: .genesis(name: "f", signingKey: founder.keys.signingPublicKey),
            keys: founder.keys)
        let add = Certificate(
            group: group, signer: founder.id, time: 2,
            body: .add(
                device: second.id, name: "s",
                signingKey: second.keys.signingPublicKey, invite: UUID(), epochs: []),
            keys: founder.keys)
        // Claims the founder signed it; the stranger did.
        let forged = Certificate(
            group: group, signer: founder.id, time: 3,
            body: .add(
                device: stranger.id, name: "x",
                signingKey: stranger.keys.signingPublicKey, invite: UUID(), epochs: []),
            keys: stranger.keys)
        var roster = Roster(group: group, anchor: genesis.digest, certificates: [genesis, add, forged])
        XCTAssertTrue(roster.isActive(second.id))
        XCTAssertFalse(roster.isActive(stranger.id))
        XCTAssertNil(
            Roster(group: group, anchor: Array(repeating: 0, count: 32), certificates: [genesis, add]).founder,
            "without its own anchor, a device trusts no genesis")
        // Another genesis for the same group id, planted by the remote, changes nothing.
        let fake = Certificate(
            group: group, signer: stranger.id, time: 0,
            body: .genesis(name: "evil", signingKey: stranger.keys.signingPublicKey),
            keys: stranger.keys)
        roster = Roster(group: group, anchor: genesis.digest, certificates: [genesis, add, fake])
        XCTAssertEqual(roster.founder, founder.id)
        XCTAssertEqual(roster.enrolled.count, 2)

        // The second device is revoked after one addition its revoker saw; a later one of its additions does not count.
        let kept = try Member(), late = try Member()
        let keptAdd = Certificate(
            group: group, signer: second.id, time: 4,
            body: .add(
                device: kept.id, name: "k", signingKey: kept.keys.signingPublicKey,
                invite: UUID(), epochs: []), keys: second.keys)
        let lateAdd = Certificate(
            group: group, signer: second.id, time: 6,
            body: .add(
                device: late.id, name: "l", signingKey: late.keys.signingPublicKey,
                invite: UUID(), epochs: []), keys: second.keys)
        let revoke = Certificate(
            group: group, signer: founder.id, time: 5,
            body: .revoke(
                device: second.id, upTo: 3, upToDigest: Array(repeating: 0, count: 32), kept: [keptAdd.digest]),
            keys: founder.keys)
        roster = Roster(group: group, anchor: genesis.digest, certificates: [genesis, add, keptAdd, lateAdd, revoke])
        XCTAssertTrue(roster.isActive(kept.id), "an addition the revoker had seen stands")
        XCTAssertFalse(roster.isActive(late.id), "one it had not (made after, or hidden) does not")
        XCTAssertFalse(roster.isActive(second.id))
        XCTAssertTrue(roster.mayWrite(second.id, seq: 3))
        XCTAssertFalse(roster.mayWrite(second.id, seq: 4))
        XCTAssertFalse(roster.mayWrite(late.id, seq: 1))
        // The revoked device answers by revoking its revoker: revocation is final both ways, nobody is reinstated and
        // nothing is gained (a stolen key can wreck the group, never read or write in it again).
        let revenge = Certificate(
            group: group, signer: second.id, time: 7,
            body: .revoke(device: founder.id, upTo: 1, upToDigest: Array(repeating: 0, count: 32), kept: []),
            keys: second.keys)
        roster = Roster(
            group: group, anchor: genesis.digest, certificates: [genesis, add, keptAdd, lateAdd, revoke, revenge])
        XCTAssertFalse(roster.isActive(founder.id))
        XCTAssertFalse(roster.isActive(second.id))
        XCTAssertFalse(roster.isActive(late.id))

        // Epochs: one the revoked device holds is not written under; a clean one is.
        let old = UUID(), fresh = UUID()
        let epochs = [
            Certificate(
                group: group, signer: founder.id, time: 2, body: .epoch(id: old, number: 1), keys: founder.keys),
            Certificate(
                group: group, signer: founder.id, time: 2,
                body: .share(
                    epoch: old, recipient: second.id,
                    sealedKey: SyncCrypto.sealedBox(SyncCrypto.randomKey(), to: second.keys.boxPublicKey) ?? []),
                keys: founder.keys),
            Certificate(group: group, signer: kept.id, time: 8, body: .epoch(id: fresh, number: 2), keys: kept.keys),
        ]
        roster = Roster(group: group, anchor: genesis.digest, certificates: [genesis, add, keptAdd, revoke] + epochs)
        XCTAssertEqual(roster.writeEpoch(held: [old, fresh])?.id, fresh)
        XCTAssertNil(roster.writeEpoch(held: [old]), "a key a revoked device holds is not written under")
        XCTAssertEqual(roster.awaitedEpoch(held: [old])?.id, fresh)
        XCTAssertEqual(roster.nextEpochNumber, 3)
    }
}
