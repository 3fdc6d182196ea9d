// PeerChains' pipeline, one step at a time (parse → enrolled → signature → link → roster → content → apply): each
// step alone refuses what it is there to refuse with its reason, and lets a good entry through to the next. Device
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

        func candidate(_ seq: Int64? = nil, device: UUID? = nil) -> PeerChains.Candidate {
            PeerChains.Candidate(
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

        /// The candidate after the steps before `step`.
        func through(_ candidate: inout PeerChains.Candidate) throws {
            XCTAssertNil(chains.parse(&candidate))
            XCTAssertNil(chains.enrolled(&candidate))
            XCTAssertNil(chains.signature(candidate))
            XCTAssertNil(chains.link(candidate, peer: peer))
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
        var garbage = w.candidate()
        let damaged = reason(w.chains.parse(&garbage))
        XCTAssertTrue(damaged.hasPrefix("entry \(w.next) from b is damaged ("), damaged)
        try w.write(seq: w.next + 1)
        var renamed = w.candidate(w.next + 2)
        try FileManager.default.moveItem(
            atPath: RemoteLayout(root: w.forger.remote).entryPath(w.b.id, w.next + 1),
            toPath: RemoteLayout(root: w.forger.remote).entryPath(w.b.id, w.next + 2))
        XCTAssertTrue(reason(w.chains.parse(&renamed)).contains("(moved or renamed on the remote)"))
        try w.write()
        var good = w.candidate()
        XCTAssertNil(w.chains.parse(&good))
        XCTAssertNotNil(good.entry)
    }

    func testEnrolled() throws {
        let w = try world()
        let stranger = UUID()
        var candidate = w.candidate(device: stranger)
        XCTAssertEqual(
            reason(w.chains.enrolled(&candidate)),
            "entries from device \(stranger.lowerText.prefix(8)), which is not an enrolled device, refused")
        var member = w.candidate()
        XCTAssertNil(w.chains.enrolled(&member))
        XCTAssertEqual(member.member?.device, w.b.uuid)
    }

    func testSignature() throws {
        var w = try world()
        w.forger.keys = try Forger.strangerKeys()
        try w.write()
        var candidate = w.candidate()
        XCTAssertNil(w.chains.parse(&candidate))
        XCTAssertNil(w.chains.enrolled(&candidate))
        XCTAssertEqual(
            reason(w.chains.signature(candidate)), "tampered entry \(w.next) from b: its signature does not verify")
    }

    func testLink() throws {
        let w = try world()
        try w.write(previous: [UInt8](repeating: 7, count: SyncCrypto.digestLength))
        var forked = w.candidate()
        XCTAssertNil(w.chains.parse(&forked))
        XCTAssertTrue(
            reason(w.chains.link(forked, peer: w.peer)).hasPrefix("fork: b's entry \(w.next) does not follow"))
        try w.write(seq: w.next + 1)
        var gap = w.candidate(w.next + 1)
        XCTAssertNil(w.chains.parse(&gap))
        XCTAssertEqual(
            reason(w.chains.link(gap, peer: w.peer)),
            "b's entry \(w.next) is missing (removed by the remote, or not copied in yet)")
        try w.write()
        var good = w.candidate()
        try w.through(&good)
    }

    func testRosterSection() throws {
        var w = try world()
        let honest = w.forger
        w.forger = Forger(honest, groupSecret: SyncCrypto.randomKey())
        try w.write()
        var candidate = w.candidate()
        try w.through(&candidate)
        XCTAssertEqual(
            reason(try w.chains.rosterSection(&candidate) {}),
            "entry \(w.next) from b does not open with the group's key")
        try w.write(using: honest)
        var good = w.candidate()
        try w.through(&good)
        XCTAssertNil(try w.chains.rosterSection(&good) {})
    }

    func testContent() throws {
        let w = try world()
        let foreign = try Forger.record(ShelfCore.Host(name: "x", hostname: "x.example"), by: w.a.id)
        try w.write([foreign])
        var candidate = w.candidate()
        try w.through(&candidate)
        XCTAssertNil(try w.chains.rosterSection(&candidate) {})
        let foreignReason = reason(try w.chains.content(&candidate))
        XCTAssertTrue(foreignReason.hasSuffix("stamped by another device"), foreignReason)
        let unknownEpoch = Forger(w.forger, epoch: UUID(), epochKey: SyncCrypto.randomKey())
        try w.write(using: unknownEpoch)
        var waiting = w.candidate()
        try w.through(&waiting)
        XCTAssertNil(try w.chains.rosterSection(&waiting) {})
        XCTAssertEqual(
            reason(try w.chains.content(&waiting)), "waiting at \(w.next)", "a key not received yet: the chain waits")
    }

    func testApply() throws {
        let w = try world()
        let bad = ShelfCore.Host(name: "evil", hostname: "e.example")
        var refused = try Forger.record(bad, by: w.b.id)
        refused.body?["passwordRef"] = .string("sync.signing")
        try w.write([refused])
        var candidate = w.candidate()
        try w.through(&candidate)
        XCTAssertNil(try w.chains.rosterSection(&candidate) {})
        XCTAssertNil(try w.chains.content(&candidate))
        var peer = w.peer, outcome = PeerChains.Outcome()
        XCTAssertTrue(
            reason(try w.chains.apply(candidate, peer: &peer, outcome: &outcome)).hasPrefix(
                "entry \(w.next) from b refused: "))
        XCTAssertEqual(peer, w.peer, "nothing of a refused entry counts")
        XCTAssertNil(try w.a.store.host(id: bad.id))

        let good = ShelfCore.Host(name: "fine", hostname: "f.example")
        try w.write([try Forger.record(good, by: w.b.id)])
        var fine = w.candidate()
        try w.through(&fine)
        XCTAssertNil(try w.chains.rosterSection(&fine) {})
        XCTAssertNil(try w.chains.content(&fine))
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
