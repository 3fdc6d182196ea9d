// Attacks by whoever can write to the remote (issue #11): redirecting a synced host to the attacker's server —
// through an impostor device folder or a forged entry in a real device's folder, in the old plaintext format and in
// this one with leaked group keys — and a forged roster certificate, a change claiming another device, a replayed
// entry, an entry moved between device folders, a rolled-back folder, a fork and a missing entry. Each is refused
// with a reason naming the device (the saved status says the same: see Device.sync), and a real sshd playing the
// attacker's server never sees a connection.
import Foundation
import ShelfCore
import ShelfStore
@testable import ShelfSync
@testable import ShelfVault
import TestSupport
import XCTest

final class AttackTests: XCTestCase {
    var servers: [SSHD] = []

    /// Released, not only stopped: XCTest keeps the test case until the process exits, and each server's folder
    /// goes with its object.
    override func tearDown() { servers = [] }

    /// Two enrolled devices with credential sync; A's host "prod" points at the real server, pinned, with its password
    /// in the vault; B has received both. Returns the devices, the host, and the attacker's server.
    func world() throws -> (a: Device, b: Device, prod: ShelfCore.Host, legit: SSHD, attacker: SSHD, remote: String) {
        try TestAccount.ensure()
        let legit = try SSHD.start(), attacker = try SSHD.start()
        servers = [legit, attacker]
        let remote = try makeFolder()
        let a = try Device("a"), b = try Device("b")
        for device in [a, b] {
            try device.enable(folder: remote)
            try SyncSettings.setCredentials(true, device.store)
        }
        var prod = ShelfCore.Host(
            name: "prod", hostname: "127.0.0.1", port: legit.port, user: TestAccount.name, authMethod: .password)
        prod.passwordRef = .hostPassword(prod.id)
        let key = legit.hostPublicKey(.ed25519).split(separator: " ")
        prod.pinnedHostKey = PinnedHostKey(type: String(key[0]), key: String(key[1]))
        try a.store.write { try $0.save(prod) }
        try a.vault.saveHostPassword(
            SecretBytes(Array(TestAccount.password.utf8)), hostID: prod.id, class: .whenUnlocked)
        try formGroup([a, b])
        XCTAssertEqual(try b.store.host(id: prod.id)?.port, legit.port)
        XCTAssertNotNil(b.vault.loadHostPassword(prod.id, class: .whenUnlocked).secret, "B has the synced password")
        return (a, b, prod, legit, attacker, remote)
    }

    /// The record the attacker wants B to accept: prod, with the attacker's port and pinned key, stamped far ahead.
    func redirected(_ prod: ShelfCore.Host, to attacker: SSHD, by device: String) throws -> SyncRecord {
        var evil = prod
        evil.port = attacker.port
        let key = attacker.hostPublicKey(.ed25519).split(separator: " ")
        evil.pinnedHostKey = PinnedHostKey(type: String(key[0]), key: String(key[1]))
        return try Forger.record(evil, by: device)
    }

    /// The format-1 line that worked before: a host record with the same id, a newer clock, the attacker's port and
    /// key.
    func formatOneLine(_ prod: ShelfCore.Host, attacker: SSHD, device: String) throws -> String {
        let key = attacker.hostPublicKey(.ed25519).split(separator: " ")
        return """
            {"v":1,"kind":"host","id":"\(prod.id.uuidString.lowercased())","wall":9999999999999,"counter":0,\
            "device":"\(device)",\
            "body":{"name":"prod","hostname":"127.0.0.1","port":\(attacker.port),"user":"\(TestAccount.name)",\
            "authMethod":"password",\
            "passwordRef":"host.\(prod.id.uuidString.lowercased()).password","pinnedHostKey":{"type":"\(key[0])",\
            "key":"\(key[1])"}}}

            """
    }

    /// B connects to prod after the attack: it reaches the real server with the synced password, and the attacker's
    /// server logs no connection at all (so certainly no authentication attempt).
    func assertConnectsToTheRealServer(
        _ b: Device, _ legit: SSHD, _ attacker: SSHD, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let result = try b.home.run("exec", "prod", "--no-stdin", "--", "echo", "reached")
        XCTAssertExit(result, 0, file: file, line: line)
        XCTAssertEqual(result.stdout, "reached\n", file: file, line: line)
        XCTAssertTrue(legit.waitForLog("Accepted password for \(TestAccount.name)"), legit.log, file: file, line: line)
        XCTAssertEqual(attacker.logCount("Connection from"), 0, attacker.log, file: file, line: line)
        XCTAssertEqual(attacker.logCount("userauth"), 0, attacker.log, file: file, line: line)
    }

    func testImpostorDeviceFolderCannotRedirectAHost() throws {
        let (a, b, prod, legit, attacker, remote) = try world()
        let layout = RemoteLayout(root: remote)
        // The old attack: a new device folder with a plaintext record.
        let impostor = UUID().uuidString.lowercased()
        try FileManager.default.createDirectory(
            atPath: layout.deviceDirectory(impostor) + "/config", withIntermediateDirectories: true)
        try #"{"format":1,"id":"\#(impostor)","name":"evil"}"#.write(
            toFile: layout.deviceDirectory(impostor) + "/device.json",
            atomically: true, encoding: .utf8)
        try formatOneLine(prod, attacker: attacker, device: impostor)
            .write(
                toFile: layout.deviceDirectory(impostor) + "/config/00000001.jsonl", atomically: true, encoding: .utf8)
        let first = b.sync()
        XCTAssertEqual(first.pulled, 0)
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: layout.deviceDirectory(impostor) + "/config"),
            "format-1 files are never read, and removed")
        // The same in this format, sealed with the group's keys (as if they had leaked), signed by the impostor's key.
        var forger = try Forger(a)
        forger.keys = try Forger.strangerKeys()
        let second = UUID().uuidString.lowercased()
        try forger.write(records: [redirected(prod, to: attacker, by: second)], seq: 1, device: second)
        let report = b.sync(expect: .localFallback)
        XCTAssertEqual(
            report.reason, "entries from device \(second.prefix(8)), which is not an enrolled device, refused")
        XCTAssertEqual(try b.store.host(id: prod.id)?.port, legit.port)
        XCTAssertEqual(try b.state(), try a.state(), "nothing of the impostor's was applied")
        try assertConnectsToTheRealServer(b, legit, attacker)
    }

    func testForgedEntryInARealDevicesFolderCannotRedirectAHost() throws {
        let (a, b, prod, legit, attacker, remote) = try world()
        let layout = RemoteLayout(root: remote)
        let next = (try FolderRemote(path: remote).entries(of: a.id).last ?? 0) + 1
        // The old attack: the next plaintext batch in A's folder.
        try FileManager.default.createDirectory(
            atPath: layout.deviceDirectory(a.id) + "/config", withIntermediateDirectories: true)
        try formatOneLine(prod, attacker: attacker, device: a.id)
            .write(toFile: layout.deviceDirectory(a.id) + "/config/00000002.jsonl", atomically: true, encoding: .utf8)
        XCTAssertEqual(b.sync().pulled, 0)
        // This format: the next entry in A's folder, chained to A's real head, sealed with the leaked group keys, but
        // signed by a key that is not A's.
        var forger = try Forger(a)
        forger.keys = try Forger.strangerKeys()
        let head = SyncCrypto.digest(try forger.existing(a.id, next - 1))
        try forger.write(records: [redirected(prod, to: attacker, by: a.id)], seq: next, device: a.id, previous: head)
        let report = b.sync(expect: .localFallback)
        XCTAssertEqual(
            report.reason, "tampered entry \(next) from a (\(a.id.prefix(8))): its signature does not verify")
        XCTAssertEqual(try b.store.host(id: prod.id)?.port, legit.port)
        try assertConnectsToTheRealServer(b, legit, attacker)
        // A notices a file it did not write in its own folder and removes it; B then carries on.
        let cleanup = a.sync()
        XCTAssertTrue(
            cleanup.warnings.contains { $0.contains("this device did not write it in this group") },
            "\(cleanup.warnings)")
        XCTAssertEqual(b.sync().state, .synced)
    }

    /// A certificate adding the attacker's device, claiming to be signed by A, smuggled into the group by a member's
    /// own entry: it does not verify, nobody is enrolled, and the attacker's entries stay refused. A forged
    /// revocation of B does not revoke it.
    func testForgedRosterCertificatesChangeNothing() throws {
        let remote = try makeFolder()
        let a = try Device("a"), b = try Device("b"), c = try Device("c")
        for device in [a, b, c] { try device.enable(folder: remote) }
        try formGroup([a, b, c])
        var forger = try Forger(b)
        let stranger = try Forger.strangerKeys()
        forger.keys = stranger
        let evil = UUID()
        let add = forger.certificate(
            .add(device: evil, name: "evil", signingKey: stranger.signingPublicKey, invite: UUID(), epochs: []),
            signer: a.uuid)
        let revoke = forger.certificate(
            .revoke(device: b.uuid, upTo: 0, upToDigest: EntryHeader.noPrevious, kept: []), signer: a.uuid)
        for certificate in [add, revoke] {
            _ = try b.store.write {
                try $0.addCertificate(
                    StoredCertificate(
                        digest: certificate.digest.hex, body: certificate.bytes.hex, mine: true, published: nil))
            }
        }
        _ = try b.add("carrier")
        b.sync()
        c.sync()
        XCTAssertNotNil(try c.host("carrier"), "B's entry itself is fine")
        XCTAssertEqual(try GroupInfo.devices(c.store).map(\.name).sorted(), ["a", "b", "c"])
        XCTAssertNil(try GroupInfo.devices(c.store).first { $0.name == "b" }?.revokedAt)
        let host = ShelfCore.Host(name: "from-evil", hostname: "evil.example")
        try forger.write(
            records: [Forger.record(host, by: evil.uuidString.lowercased())], seq: 1,
            device: evil.uuidString.lowercased())
        let report = c.sync(expect: .localFallback)
        XCTAssertEqual(
            report.reason,
            "entries from device \(evil.uuidString.lowercased().prefix(8)), which is not an enrolled device, refused")
        XCTAssertNil(try c.host("from-evil"))
        XCTAssertEqual(b.sync(expect: .localFallback).membership, "member")
    }

    /// A delta speaks only for its writer: an entry signed with A's real key (in other hands) that carries a change
    /// stamped by B is refused whole — not even A's own change in it is applied.
    func testAChangeClaimingAnotherDeviceRefusesTheWholeEntry() throws {
        let remote = try makeFolder()
        let a = try Device("a"), b = try Device("b"), c = try Device("c")
        for device in [a, b, c] { try device.enable(folder: remote) }
        let web = try a.add("web", hostname: "real.example")
        try formGroup([a, b, c])
        let forger = try Forger(a)
        let last = try FolderRemote(path: remote).entries(of: a.id).last ?? 0
        let previous = SyncCrypto.digest(try forger.existing(a.id, last))
        var evil = try XCTUnwrap(try a.store.host(id: web.id))
        evil.hostname = "evil.example"
        let own = ShelfCore.Host(name: "from-a", hostname: "a.example")
        try forger.write(
            records: [Forger.record(own, by: a.id), Forger.record(evil, by: b.id)], seq: last + 1, device: a.id,
            previous: previous)
        let report = c.sync(expect: .localFallback)
        XCTAssertEqual(
            report.reason,
            "tampered entry \(last + 1) from a (\(a.id.prefix(8))): it carries a change to host "
                + "\(web.id.lowerText.prefix(8)) stamped by another device")
        XCTAssertNil(try c.host("from-a"), "nothing else from that entry")
        XCTAssertEqual(try c.store.host(id: web.id)?.hostname, "real.example")
    }

    func testReplayedEntryIsRefused() throws {
        let remote = try makeFolder()
        let a = try Device("a"), b = try Device("b")
        for device in [a, b] { try device.enable(folder: remote) }
        try formGroup([a, b])
        let host = try a.add("web")
        a.sync(); b.sync()
        try a.store.write { try $0.deleteHost(host.id) }
        a.sync(); b.sync()
        XCTAssertNil(try b.host("web"))
        // The remote replays the entry that created the host as A's next one.
        let seqs = try FolderRemote(path: remote).entries(of: a.id)
        let forger = try Forger(a)
        let creation = try forger.existing(a.id, seqs[seqs.count - 2])
        let next = (seqs.last ?? 0) + 1
        try forger.place(creation, device: a.id, seq: next)
        let report = b.sync(expect: .localFallback)
        XCTAssertEqual(
            report.reason,
            "tampered entry \(next) from a (\(a.id.prefix(8))): it is entry \(seqs[seqs.count - 2]) of device "
                + "\(a.id.prefix(8)) (moved or renamed on the remote)")
        XCTAssertNil(try b.host("web"), "the deleted host did not come back")
    }

    func testEntryMovedBetweenDeviceFoldersIsRefused() throws {
        let remote = try makeFolder()
        let a = try Device("a"), b = try Device("b"), c = try Device("c")
        for device in [a, b, c] { try device.enable(folder: remote) }
        try formGroup([a, b, c])
        _ = try a.add("only-from-a")
        a.sync()
        let forger = try Forger(a)
        let aSeqs = try FolderRemote(path: remote).entries(of: a.id)
        let bNext = (try FolderRemote(path: remote).entries(of: b.id).last ?? 0) + 1
        try forger.place(try forger.existing(a.id, aSeqs.last ?? 1), device: b.id, seq: bNext)
        try FileManager.default.removeItem(atPath: RemoteLayout(root: remote).entryPath(a.id, aSeqs.last ?? 1))
        let report = c.sync(expect: .localFallback)
        XCTAssertEqual(
            report.reason,
            "tampered entry \(bNext) from b (\(b.id.prefix(8))): it is entry \(aSeqs.last ?? 1) of device "
                + "\(a.id.prefix(8)) (moved or renamed on the remote)")
        XCTAssertNil(try c.host("only-from-a"))
    }

    func testRolledBackFolderIsDetectedAndTheWriterHealsIt() throws {
        let remote = try makeFolder()
        let a = try Device("a"), b = try Device("b")
        for device in [a, b] { try device.enable(folder: remote) }
        try formGroup([a, b])
        for name in ["one", "two", "three"] {
            _ = try a.add(name)
            a.sync()
        }
        b.sync()
        let seqs = try FolderRemote(path: remote).entries(of: a.id)
        let verified = seqs.last ?? 0
        // The remote goes back to an older state of A's folder.
        for seq in seqs.suffix(2) {
            try FileManager.default.removeItem(atPath: RemoteLayout(root: remote).entryPath(a.id, seq))
        }
        let report = b.sync(expect: .localFallback)
        XCTAssertEqual(
            report.reason,
            "rollback detected: a (\(a.id.prefix(8)))'s entries end at \(verified - 2), this device has verified "
                + "\(verified)")
        // A sees that the remote lost its entries, says so, and republishes everything; B accepts the snapshot.
        let healing = a.sync()
        XCTAssertTrue(
            healing.warnings.contains { $0.hasPrefix("the remote lost this device's entries") }, "\(healing.warnings)")
        XCTAssertEqual(
            try FolderRemote(path: remote).entries(of: a.id).last, verified + 1, "a sequence number is never used twice"
        )
        b.sync()
        XCTAssertEqual(try a.state(), try b.state())
    }

    func testForkIsDetected() throws {
        let remote = try makeFolder()
        let a = try Device("a"), b = try Device("b")
        for device in [a, b] { try device.enable(folder: remote) }
        try formGroup([a, b])
        _ = try a.add("web")
        a.sync(); b.sync()
        let seqs = try FolderRemote(path: remote).entries(of: a.id)
        let last = seqs.last ?? 0
        // Another entry with A's number and A's real key (a cloned device, or A's key in other hands).
        let forger = try Forger(a)
        let previous = SyncCrypto.digest(try forger.existing(a.id, last - 1))
        let other = ShelfCore.Host(name: "other-history", hostname: "o.example")
        let fork = try forger.entry(
            device: a.id, seq: last, previous: previous, records: [Forger.record(other, by: a.id, wall: 1)])
        try FileManager.default.removeItem(atPath: RemoteLayout(root: remote).entryPath(a.id, last))
        try forger.place(fork.bytes, device: a.id, seq: last)
        let report = b.sync(expect: .localFallback)
        XCTAssertEqual(report.reason, "fork: a (\(a.id.prefix(8))) wrote two entries numbered \(last)")
        XCTAssertNil(try b.host("other-history"))
    }

    func testMissingEntryStopsThatDeviceUntilItIsThere() throws {
        let remote = try makeFolder()
        let a = try Device("a"), b = try Device("b")
        for device in [a, b] { try device.enable(folder: remote) }
        try formGroup([a, b])
        _ = try a.add("first")
        a.sync()
        _ = try a.add("second")
        a.sync()
        let seqs = try FolderRemote(path: remote).entries(of: a.id)
        let missing = seqs[seqs.count - 2]
        let path = RemoteLayout(root: remote).entryPath(a.id, missing)
        try FileManager.default.moveItem(atPath: path, toPath: path + ".aside")
        let report = b.sync(expect: .localFallback)
        XCTAssertEqual(
            report.reason,
            "a (\(a.id.prefix(8)))'s entry \(missing) is missing (removed by the remote, or not copied in yet)")
        XCTAssertNil(try b.host("second"), "nothing after the gap is applied")
        // A sync tool copies it in later: everything applies.
        try FileManager.default.moveItem(atPath: path + ".aside", toPath: path)
        b.sync()
        XCTAssertNotNil(try b.host("second"))
    }
}
