// Set merges: a host's tags and aliases merge value by value (FieldSets). An add on one device and an add or
// remove of another value on another both survive; removes on both sides agree; an add and a remove of one value
// made without knowing of each other clash, the later wins and a conflict is recorded; the merge stays order-free;
// a record without per-value stamps (as older versions send) merges as a whole-list write, as before; and two
// real devices syncing through a folder end with both tags.
import Foundation
import ShelfCore
import ShelfStore
import ShelfSync
import TestSupport
import XCTest

final class SetMergeTests: XCTestCase {
    let a = "11111111-1111-4111-8111-111111111111", b = "22222222-2222-4222-8222-222222222222"

    func stamp(_ wall: Int64, _ device: String) -> ClockStamp { ClockStamp(wall: wall, counter: 0, device: device) }

    /// A host made at wall 1 by device a with `tags`, then edited on `device` at `wall` to `edited`.
    func base(_ tags: [String]) -> (RecordClock, [String: JSONValue]) {
        (
            RecordClock.uniform(GroupStamp(stamp: stamp(1, a)), kind: .host),
            ["name": .string("web"), "tags": .array(tags.map(JSONValue.string))]
        )
    }

    func edit(
        _ version: (RecordClock, [String: JSONValue]), to tags: [String], on device: String, at wall: Int64
    )
        -> (RecordClock, [String: JSONValue])
    {
        var body = version.1
        body["tags"] = .array(tags.map(JSONValue.string))
        let clock = FieldMerge.localEdit(
            kind: .host, old: version.0, oldBody: version.1, newBody: body, stamp: stamp(wall, device))
        return (clock ?? version.0, body)
    }

    func merge(
        _ local: (RecordClock, [String: JSONValue]), _ incoming: (RecordClock, [String: JSONValue])
    ) throws -> FieldMerge.Result {
        try XCTUnwrap(FieldMerge.merge(kind: .host, local: (local.0, local.1), incoming: incoming.0, body: incoming.1))
    }

    func tags(_ result: FieldMerge.Result) -> [String] { FieldGroups.values(of: "tags", in: result.body) }

    func testAddOnOneDeviceAndAddOnAnotherBothSurvive() throws {
        let start = base(["postgres"])
        let onA = edit(start, to: ["postgres", "from-a"], on: a, at: 5)
        let onB = edit(start, to: ["postgres", "from-b"], on: b, at: 6)
        let atA = try merge(onA, onB), atB = try merge(onB, onA)
        XCTAssertEqual(tags(atA), ["postgres", "from-a", "from-b"], "oldest add first")
        XCTAssertEqual(tags(atB), tags(atA))
        XCTAssertEqual(atA.clock, atB.clock)
        XCTAssertEqual(atA.conflicts, [], "two adds are no conflict")
        XCTAssertEqual(atB.conflicts, [])
    }

    func testAddOnOneDeviceAndRemoveOfAnotherValueBothSurvive() throws {
        let start = base(["postgres", "old"])
        let onA = edit(start, to: ["postgres", "old", "new"], on: a, at: 5)
        let onB = edit(start, to: ["postgres"], on: b, at: 4)
        let atA = try merge(onA, onB), atB = try merge(onB, onA)
        XCTAssertEqual(tags(atA), ["postgres", "new"])
        XCTAssertEqual(tags(atB), ["postgres", "new"])
        XCTAssertEqual(atA.conflicts + atB.conflicts, [])
    }

    func testRemovesOnBothSidesAgree() throws {
        let start = base(["x", "y", "z"])
        let onA = edit(start, to: ["x", "z"], on: a, at: 5)
        let onB = edit(start, to: ["x", "y"], on: b, at: 6)
        let atA = try merge(onA, onB), atB = try merge(onB, onA)
        XCTAssertEqual(tags(atA), ["x"])
        XCTAssertEqual(tags(atB), ["x"])
        XCTAssertEqual(atA.conflicts + atB.conflicts, [])
        // The same value removed on both: no clash either.
        let bothA = edit(start, to: ["x", "z"], on: a, at: 5), bothB = edit(start, to: ["x", "z"], on: b, at: 6)
        XCTAssertEqual(tags(try merge(bothA, bothB)), ["x", "z"])
        XCTAssertEqual(try merge(bothA, bothB).conflicts, [])
    }

    /// A true clash: one device adds a value the other removes, neither knowing: the later stamp wins (here the
    /// remove), on both devices alike, and each records the conflict in words it can show.
    func testConcurrentAddAndRemoveOfOneValueKeepTheLaterAndConflict() throws {
        let start = base(["db"])
        let removedOnA = edit(start, to: [], on: a, at: 7)
        let readdedOnB = edit(edit(start, to: [], on: b, at: 3), to: ["db"], on: b, at: 5)
        let atA = try merge(removedOnA, readdedOnB), atB = try merge(readdedOnB, removedOnA)
        XCTAssertEqual(tags(atA), [], "the later of the two wins: the remove at 7 over the add at 5")
        XCTAssertEqual(tags(atB), [])
        XCTAssertEqual(atA.clock, atB.clock)
        let conflict = try XCTUnwrap(atB.conflicts.first)
        XCTAssertEqual(conflict.group, "tags")
        XCTAssertEqual(conflict.kept, #"{"removed":"db"}"#)
        XCTAssertEqual(conflict.lost, #"{"added":"db"}"#)
        XCTAssertEqual(conflict.keptBy, a)
        XCTAssertEqual(atA.conflicts.map(\.lost), [#"{"added":"db"}"#])
        // The add later than the remove wins the other way round.
        let lateAdd = edit(edit(start, to: [], on: b, at: 3), to: ["db"], on: b, at: 9)
        XCTAssertEqual(tags(try merge(removedOnA, lateAdd)), ["db"])
        XCTAssertEqual(tags(try merge(lateAdd, removedOnA)), ["db"])
    }

    /// Records without per-value stamps — what an older sshelf sends — merge as whole lists, as before sets.
    func testARecordWithoutPerValueStampsMergesAsAWholeList() throws {
        let start = base(["a", "b"])
        var old = start
        old.1["tags"] = .array([.string("c")])
        old.0.groups["tags"] = GroupStamp(stamp: stamp(9, b))
        let merged = try merge(start, old)
        XCTAssertEqual(tags(merged), ["c"], "the later whole list wins")
        XCTAssertTrue(merged.clock.sets.isEmpty, "and is kept as one list, not per value")
        // Against per-value stamps, an older whole list removes what it did not list as of its stamp; a later add
        // still survives.
        let added = edit(start, to: ["a", "b", "late"], on: a, at: 12)
        XCTAssertEqual(tags(try merge(added, old)), ["c", "late"])
        XCTAssertEqual(tags(try merge(old, added)), ["c", "late"])
    }

    /// Whatever the order and the duplicates, the same result (the merge is a join).
    func testSetMergeIgnoresOrderAndDuplicates() throws {
        var random = SplitMix64(state: 7)
        let devices = [a, b, "33333333-3333-4333-8333-333333333333"]
        for _ in 0..<100 {
            let start = base(["t0", "t1"])
            var versions: [(RecordClock, [String: JSONValue])] = []
            for index in 0..<3 {
                var version = start
                for step in 0..<Int.random(in: 1...3, using: &random) {
                    let tags = (0..<4).map { "t\($0)" }.filter { _ in Bool.random(using: &random) }
                    version = edit(
                        version, to: tags, on: devices[index],
                        at: Int64(2 + step * 3 + Int.random(in: 0..<3, using: &random)))
                }
                versions.append(version)
            }
            func fold(_ order: [(RecordClock, [String: JSONValue])]) throws -> String {
                var local = start
                for version in order {
                    let result = try merge(local, version)
                    local = (result.clock, try XCTUnwrap(result.body))
                }
                return local.0.text(kind: .host, keepVia: false) + " "
                    + FieldGroups.values(of: "tags", in: local.1).joined(separator: ",")
            }
            let reference = try fold(versions)
            for _ in 0..<3 {
                var shuffled = versions + [versions[Int.random(in: 0..<3, using: &random)]]
                shuffled.shuffle(using: &random)
                XCTAssertEqual(try fold(shuffled), reference)
            }
        }
    }

    /// The per-value stamps survive the clock's text form, on the wire and in the store.
    func testPerValueStampsSurviveTheClockText() throws {
        let edited = edit(base(["a b", "ü"]), to: ["ü", "new"], on: b, at: 5)
        let text = edited.0.text(kind: .host, keepVia: false)
        XCTAssertFalse(text.contains("new"), "values are written as hex, never with spaces: \(text)")
        XCTAssertEqual(RecordClock(text: text, kind: .host, latest: .zero, deleted: false), edited.0)
        XCTAssertNil(
            RecordClock(text: "*=1.0@\(a) tags+zz=1.0@\(a)", kind: .host, latest: .zero, deleted: false), "bad hex")
    }

    /// Two real devices, one folder: each adds a tag to one host at the same time; after syncing both have both.
    func testTwoDevicesAddingTagsAtOnceKeepBoth() throws {
        let remote = try makeFolder()
        let deviceA = try Device("a"), deviceB = try Device("b")
        for device in [deviceA, deviceB] { try device.enable(folder: remote) }
        let host = try deviceA.add("db", hostname: "db.example")
        try deviceA.edit(host.id) { $0.tags = ["postgres"] }
        try formGroup([deviceA, deviceB])
        try deviceA.edit(host.id) { $0.tags.append("from-a") }
        try deviceB.edit(host.id) { $0.tags.append("from-b") }
        try deviceB.edit(host.id) { $0.aliases = ["pg"] }
        deviceA.sync(); deviceB.sync(); deviceA.sync()
        for device in [deviceA, deviceB] {
            let merged = try XCTUnwrap(try device.store.host(id: host.id))
            XCTAssertEqual(Set(merged.tags), ["postgres", "from-a", "from-b"], device.name)
            XCTAssertEqual(merged.aliases, ["pg"], device.name)
            XCTAssertEqual(try device.store.conflicts().count, 0, device.name)
        }
        XCTAssertEqual(try deviceA.state(), try deviceB.state())
        // A remove on one device and an add on the other, then both directions again.
        try deviceA.edit(host.id) { $0.tags.removeAll { $0 == "from-b" } }
        try deviceB.edit(host.id) { $0.tags.append("replica") }
        deviceB.sync(); deviceA.sync(); deviceB.sync()
        for device in [deviceA, deviceB] {
            XCTAssertEqual(
                Set(try XCTUnwrap(try device.store.host(id: host.id)).tags), ["postgres", "from-a", "replica"],
                device.name)
        }
        XCTAssertEqual(try deviceA.state(), try deviceB.state())
    }
}
