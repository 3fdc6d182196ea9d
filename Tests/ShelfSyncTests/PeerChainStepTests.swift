// PeerChains' pipeline, one step at a time (parse → enrolled → signature → link → roster → content → apply): each
// step alone refuses what it is there to refuse with its reason, and lets a good entry through to the next — as the
// type the next step takes (a step cannot be given what an earlier one did not find: the compiler holds that). Device
// a reads entries crafted in device b's folder (Forger: b's signing key and the group's keys unless told otherwise).
import Foundation
import ShelfCore
import ShelfStore
@testable import ShelfSync
import ShelfVault
import TestSupport
import XCTest

final class PeerChainStepTests: XCTestCase {
    struct World {
        let a: Device, b: Device
        let chains: PeerChains
        var forger: Forger
        let peer: PeerState
        var next: Int64 { peer.head + 1 }

        func wanted(_ seq: Int64? = nil, device: UUID? = nil) -> PeerChains.Wanted {
            PeerChains.Wanted(
                folder: (device ?? b.uuid).lowerText, device: device ?? b.uuid, seq: seq ?? next, name: "b")
        }

        /// b's next entry with `records`, chained to the entry a verified.
        func write(
            _ records: [SyncRecord] = [], seq: Int64? = nil, previous: [UInt8]? = nil, using forger: Forger? = nil
        ) throws {
            try (forger ?? self.forger).write(
                records: records, seq: seq ?? next, device: b.id,
                previous: previous ?? ([UInt8](hex: peer.headDigest) ?? []))
        }

        /// The entry past parse, enrolled, signature and link (each asserted to let it through).
        func through(_ wanted: PeerChains.Wanted, file: StaticString = #filePath, line: UInt = #line) throws
            -> PeerChains.Linked
        {
            let step = chains.parse(wanted).then(chains.enrolled).then(chains.signature).then {
                chains.link($0, peer: peer)
            }
            return try XCTUnwrap(step.passed, "stopped: \(String(describing: step.stop))", file: file, line: line)
        }

        func rostered(_ wanted: PeerChains.Wanted) throws -> PeerChains.Rostered {
            var notes: [String] = []
            return try XCTUnwrap(try chains.rosterSection(try through(wanted), notes: &notes) {}.passed)
        }
    }

    func world() throws -> World {
        let remote = try makeFolder()
        let a = try Device("a"), b = try Device("b")
        for device in [a, b] { try device.enable(folder: remote) }
        try formGroup([a, b])
        let state = try XCTUnwrap(try GroupState.load(a.store))
        let session = try SyncSession(
            store: a.store, vault: a.vault, keys: try a.keys(), me: a.uuid, deviceName: "a", now: Date(), state: state)
        return World(
            a: a, b: b, chains: PeerChains(session: session, remote: FolderRemote(path: remote)), forger: try Forger(b),
            peer: try a.store.peer(b.id))
    }

    func reason<Next>(_ step: PeerChains.Step<Next>) -> String { reason(step.stop) }

    func reason(_ stop: PeerChains.Stop?) -> String {
        switch stop {
        case .problem(let failure)?: failure.reason
        case .note(let text)?: "note: " + text
        case .waiting(_, let seq)?: "waiting at \(seq)"
        case nil: "passed"
        }
    }

    func testParse() throws {
        let w = try world()
        try w.forger.place(Array("not an entry".utf8), device: w.b.id, seq: w.next)
        let damaged = reason(w.chains.parse(w.wanted()))
        XCTAssertTrue(damaged.hasPrefix("entry \(w.next) from b is damaged ("), damaged)
        try w.write(seq: w.next + 1)
        let renamed = w.wanted(w.next + 2)
        try FileManager.default.moveItem(
            atPath: RemoteLayout(root: w.forger.remote).entryPath(w.b.id, w.next + 1),
            toPath: RemoteLayout(root: w.forger.remote).entryPath(w.b.id, w.next + 2))
        XCTAssertTrue(reason(w.chains.parse(renamed)).contains("(moved or renamed on the remote)"))
        try w.write()
        let good = try XCTUnwrap(w.chains.parse(w.wanted()).passed)
        XCTAssertEqual(good.entry.header.seq, UInt64(w.next))
    }

    func testEnrolled() throws {
        let w = try world()
        let stranger = UUID()
        try w.forger.write(records: [], seq: 1, device: stranger.lowerText)
        let parsed = try XCTUnwrap(w.chains.parse(w.wanted(1, device: stranger)).passed)
        XCTAssertEqual(
            reason(w.chains.enrolled(parsed)),
            "entries from device \(stranger.lowerText.prefix(8)), which is not an enrolled device, refused")
        try w.write()
        let member = try XCTUnwrap(w.chains.parse(w.wanted()).then(w.chains.enrolled).passed)
        XCTAssertEqual(member.member.device, w.b.uuid)
    }

    func testSignature() throws {
        var w = try world()
        w.forger.keys = try Forger.strangerKeys()
        try w.write()
        let enrolled = try XCTUnwrap(w.chains.parse(w.wanted()).then(w.chains.enrolled).passed)
        XCTAssertEqual(
            reason(w.chains.signature(enrolled)), "tampered entry \(w.next) from b: its signature does not verify")
    }

    func testLink() throws {
        let w = try world()
        try w.write(previous: [UInt8](repeating: 7, count: SyncCrypto.digestLength))
        let signed = { (wanted: PeerChains.Wanted) in
            try XCTUnwrap(w.chains.parse(wanted).then(w.chains.enrolled).then(w.chains.signature).passed)
        }
        let forked = try signed(w.wanted())
        XCTAssertTrue(
            reason(w.chains.link(forked, peer: w.peer)).hasPrefix("fork: b's entry \(w.next) does not follow"))
        try w.write(seq: w.next + 1)
        let gap = try signed(w.wanted(w.next + 1))
        XCTAssertEqual(
            reason(w.chains.link(gap, peer: w.peer)),
            "b's entry \(w.next) is missing (removed by the remote, or not copied in yet)")
        try w.write()
        _ = try w.through(w.wanted())
    }

    func testRosterSection() throws {
        var w = try world()
        let honest = w.forger
        w.forger = Forger(honest, groupSecret: SyncCrypto.randomKey())
        try w.write()
        var notes: [String] = []
        XCTAssertEqual(
            reason(try w.chains.rosterSection(try w.through(w.wanted()), notes: &notes) {}),
            "entry \(w.next) from b does not open with the group's key")
        try w.write(using: honest)
        XCTAssertEqual(try w.rostered(w.wanted()).certificates.count, 0)
    }

    func testContent() throws {
        let w = try world()
        let foreign = try Forger.record(ShelfCore.Host(name: "x", hostname: "x.example"), by: w.a.id)
        try w.write([foreign])
        let foreignReason = reason(try w.chains.content(try w.rostered(w.wanted())))
        XCTAssertTrue(foreignReason.hasSuffix("stamped by another device"), foreignReason)
        let unknownEpoch = Forger(w.forger, epoch: UUID(), epochKey: SyncCrypto.randomKey())
        try w.write(using: unknownEpoch)
        XCTAssertEqual(
            reason(try w.chains.content(try w.rostered(w.wanted()))), "waiting at \(w.next)",
            "a key not received yet: the chain waits")
    }

    func testApply() throws {
        let w = try world()
        let bad = ShelfCore.Host(name: "evil", hostname: "e.example")
        var refused = try Forger.record(bad, by: w.b.id)
        refused.body?["passwordRef"] = .string("sync.signing")
        try w.write([refused])
        let candidate = try XCTUnwrap(try w.chains.content(try w.rostered(w.wanted())).passed)
        var peer = w.peer, outcome = PeerChains.Outcome()
        XCTAssertTrue(
            reason(try w.chains.apply(candidate, peer: &peer, outcome: &outcome)).hasPrefix(
                "entry \(w.next) from b refused: "))
        XCTAssertEqual(peer, w.peer, "nothing of a refused entry counts")
        XCTAssertNil(try w.a.store.host(id: bad.id))

        let good = ShelfCore.Host(name: "fine", hostname: "f.example")
        try w.write([try Forger.record(good, by: w.b.id)])
        let fine = try XCTUnwrap(try w.chains.content(try w.rostered(w.wanted())).passed)
        XCTAssertNil(try w.chains.apply(fine, peer: &peer, outcome: &outcome))
        XCTAssertEqual(peer.head, w.next)
        XCTAssertEqual(outcome.applied, 1)
        XCTAssertEqual(try w.a.store.host(id: good.id)?.name, "fine")
        XCTAssertEqual(try w.a.store.peer(w.b.id).head, w.next, "the head moved with the records, in one transaction")
    }
}

extension Forger {
    /// This forger with other group keys (a secret or an epoch the reader does not hold).
    init(_ other: Forger, groupSecret: SecretBytes? = nil, epoch: UUID? = nil, epochKey: SecretBytes? = nil) {
        remote = other.remote
        group = other.group
        anchor = other.anchor
        self.groupSecret = groupSecret ?? other.groupSecret
        self.epoch = epoch ?? other.epoch
        self.epochKey = epochKey ?? other.epochKey
        keys = other.keys
    }
}
