// Confidentiality: after a full workflow — hosts with recognisable names, addresses, users, tags, notes, pinned keys,
// identities, forward targets, credentials, enrollment, edits, conflicts, a deletion and a revocation — none of that
// text appears in any remote file, nor in any object of the git repository (raw, base64 at every alignment, hex).
// The remote sees sizes, counts and timing only.
import Foundation
import ShelfCore
import ShelfStore
import ShelfSync
import ShelfVault
import TestSupport
import XCTest

final class ConfidentialityTests: XCTestCase {
    static let canaries = [
        "canaryhost-prod-db", "canary-db.internal.example", "canaryuser-dbadmin", "canarytag-payments", "canary notes: rack 7",
        "canary-fwd.internal.example", "canarygroup-eu-west", "AAAAC3NzaC1lZDI1NTE5AAAAIcanarypinnedkey0123456789",
        "ssh-ed25519 AAAAcanaryidentitykey0123456789", "canary-identity-laptop", "CANARY-credential-Pa55",
        "/home/canary/.ssh/id_canary",
    ]

    func workflow(_ enable: (Device) throws -> Void) throws -> [Device] {
        let a = try Device("a"), b = try Device("b"), c = try Device("c")
        for device in [a, b, c] {
            try enable(device)
            try SyncSettings.setCredentials(true, device.store)
        }
        let canaries = Self.canaries
        let group = HostGroup(name: canaries[6])
        let identity = Identity(name: canaries[9], publicKey: canaries[8], privateKeyRef: .identityPrivateKey(UUID()), keyFile: canaries[11])
        var host = ShelfCore.Host(name: canaries[0], hostname: canaries[1], user: canaries[2], groupID: group.id, tags: [canaries[3]],
                                  identityID: identity.id, notes: canaries[4])
        host.pinnedHostKey = PinnedHostKey(type: "ssh-ed25519", key: canaries[7])
        host.passwordRef = .hostPassword(host.id)
        let rule = PortForwardRule(hostID: host.id, name: "canary-forward", bindPort: 8080, targetHost: canaries[5], targetPort: 80)
        try a.store.write { store in
            try store.save(group)
            try store.save(identity)
            try store.save(host)
            try store.save(rule)
        }
        try a.vault.saveHostPassword(SecretBytes(Array(canaries[10].utf8)), hostID: host.id, class: .whenUnlocked)
        try formGroup([a, b, c])
        XCTAssertEqual(try b.store.host(id: host.id)?.hostname, canaries[1], "the workflow really synced the canaries")
        XCTAssertNotNil(b.vault.loadHostPassword(host.id, class: .whenUnlocked).secret)
        // Edits on two devices, a conflict, a deletion, a revocation with its new key.
        try b.edit(host.id) { $0.notes = canaries[4] + " (edited)" }
        try c.edit(host.id) { $0.notes = canaries[4] + " (edited on c)" }
        b.sync(); c.sync(); a.sync()
        let doomed = try a.add(canaries[0] + "-old", hostname: canaries[1])
        a.sync()
        try b.store.write { try $0.deleteHost(doomed.id) }
        b.sync()
        a.sync(revoke: c.uuid)
        b.sync(); a.sync()
        return [a, b, c]
    }

    func testNothingRecognisableInAFolderRemote() throws {
        let remote = try makeFolder()
        _ = try workflow { try $0.enable(folder: remote) }
        XCTAssertFalse(files(under: remote).isEmpty)
        try Canaries.assertAbsent(Self.canaries, inFolder: remote)
    }

    func testNothingRecognisableInAnyGitObject() throws {
        let repository = try makeBareRepository()
        let devices = try workflow { try $0.enable(git: repository.url) }
        try Canaries.assertAbsent(Self.canaries, inGit: repository.path)
        // The scan is able to see such text: the same scan of a device's own store (and its WAL) finds it.
        var local = Data()
        for suffix in ["", "-wal"] { local += (try? Data(contentsOf: URL(fileURLWithPath: devices[0].locations.store + suffix))) ?? Data() }
        XCTAssertFalse(Canaries.found(Self.canaries, in: local).isEmpty, "a canary scan that cannot find anything proves nothing")
    }
}
