// Confidentiality: after a full workflow — hosts with recognisable names, addresses, users, tags, notes, kept
// ssh_config options (a ProxyCommand, a SetEnv), an unresolved jump, real pinned and identity keys and their
// fingerprints, identities, forward rules, groups, device names, credentials, enrollment, edits, conflicts, a
// deletion and a revocation — none of that text appears in any remote file or file name, nor in any object of the
// git repository (raw, base64 at every alignment, hex). The remote sees sizes, counts and timing only.
import Foundation
import ShelfCore
import ShelfStore
import ShelfSync
@testable import ShelfVault
import TestSupport
import XCTest

final class ConfidentialityTests: XCTestCase {
    static let canaries = [
        "canaryhost-prod-db", "canary-db.internal.example", "canaryuser-dbadmin", "canarytag-payments",
        "canary notes: rack 7",
        "canary-fwd.internal.example", "canarygroup-eu-west", "canary-identity-laptop", "CANARY-credential-Pa55",
        "/home/canary/.ssh/id_canary", "canary-forward-name", "canary-jump.internal.example", "canary group notes",
        // The host's kept ssh_config lines (the OpenSSH bridge's `options`): a ProxyCommand and a SetEnv value.
        "canary-bastion.internal.example", "ProxyCommand ssh -W %h:%p canary-bastion", "CANARY_SETENV_VALUE",
        // Device names: they live in the sealed roster only.
        "canary-device-laptop", "canary-device-desktop", "canary-device-phone",
    ]

    /// A real key pair made by ssh-keygen: the public key's base64 and its SHA256 fingerprint (with and without the
    /// prefix) are canaries too.
    static func realKey(_ name: String) throws -> (type: String, base64: String, canaries: [String]) {
        let folder = try makeFolder("key")
        try Shell.run(TestTool.sshKeygen.path, ["-q", "-t", "ed25519", "-N", "", "-C", "", "-f", folder + "/" + name])
        let line = try String(contentsOfFile: folder + "/" + name + ".pub", encoding: .utf8).split(separator: " ")
        let fingerprint = try Shell.run(TestTool.sshKeygen.path, ["-l", "-f", folder + "/" + name + ".pub"]).split(
            separator: " ")[1]
        XCTAssertTrue(fingerprint.hasPrefix("SHA256:"))
        return (
            String(line[0]), String(line[1]), [String(line[1]), String(fingerprint), String(fingerprint.dropFirst(7))]
        )
    }

    func workflow(_ enable: (Device) throws -> Void) throws -> (devices: [Device], canaries: [String]) {
        let a = try Device("canary-device-laptop"), b = try Device("canary-device-desktop"),
            c = try Device("canary-device-phone")
        for device in [a, b, c] {
            try enable(device)
            try SyncSettings.setCredentials(true, device.store)
        }
        let hostKey = try Self.realKey("host"), identityKey = try Self.realKey("identity")
        let canaries = Self.canaries + hostKey.canaries + identityKey.canaries
        let group = HostGroup(name: canaries[6], notes: canaries[12])
        let identity = Identity(
            name: canaries[7], publicKey: "\(identityKey.type) \(identityKey.base64)",
            privateKeyRef: .identityPrivateKey(UUID()), keyFile: canaries[9])
        var host = ShelfCore.Host(
            name: canaries[0], hostname: canaries[1], user: canaries[2], groupID: group.id, tags: [canaries[3]],
            identityID: identity.id, unresolvedJump: canaries[11], notes: canaries[4])
        host.pinnedHostKey = PinnedHostKey(type: hostKey.type, key: hostKey.base64)
        host.passwordRef = .hostPassword(host.id)
        host.options = [
            "ProxyCommand ssh -W %h:%p \(canaries[13])", "SetEnv CANARY_NAME=\(canaries[15])", "ServerAliveInterval 30",
        ]
        let rule = PortForwardRule(
            hostID: host.id, name: canaries[10], bindPort: 8080, targetHost: canaries[5], targetPort: 80)
        try a.store.write { store in
            try store.save(group)
            try store.save(identity)
            try store.save(host)
            try store.save(rule)
        }
        try a.vault.saveHostPassword(SecretBytes(Array(canaries[8].utf8)), hostID: host.id, class: .whenUnlocked)
        try formGroup([a, b, c])
        XCTAssertEqual(try b.store.host(id: host.id)?.hostname, canaries[1], "the workflow really synced the canaries")
        XCTAssertEqual(try b.store.host(id: host.id)?.options, host.options)
        XCTAssertNotNil(b.vault.loadHostPassword(host.id, class: .whenUnlocked).secret)
        // Edits on two devices (notes and the kept options), a conflict, a deletion, a revocation with its new key.
        try b.edit(host.id) {
            $0.notes = canaries[4] + " (edited)"
            $0.options.append("SetEnv CANARY_OTHER=\(canaries[15])-b")
        }
        try c.edit(host.id) {
            $0.notes = canaries[4] + " (edited on c)"
            $0.options = ["ProxyCommand ssh -W %h:%p \(canaries[13])-c"]
        }
        b.sync(); c.sync(); a.sync()
        let doomed = try a.add(canaries[0] + "-old", hostname: canaries[1])
        a.sync()
        try b.store.write { try $0.deleteHost(doomed.id) }
        b.sync()
        a.sync(revoke: c.uuid)
        b.sync(); a.sync()
        XCTAssertFalse(try b.store.conflicts().isEmpty, "the workflow made a conflict")
        return ([a, b, c], canaries)
    }

    func testNothingRecognisableInAFolderRemote() throws {
        let remote = try makeFolder()
        let (_, canaries) = try workflow { try $0.enable(folder: remote) }
        XCTAssertFalse(files(under: remote).isEmpty)
        try Canaries.assertAbsent(canaries, inFolder: remote)
    }

    func testNothingRecognisableInAnyGitObject() throws {
        let repository = try makeBareRepository()
        let (devices, canaries) = try workflow { try $0.enable(git: repository.url) }
        try Canaries.assertAbsent(canaries, inGit: repository.path)
        // The scan is able to see such text: the same scan of a device's own store (and its WAL) finds it.
        var local = Data()
        for suffix in ["", "-wal"] {
            local += (try? Data(contentsOf: URL(fileURLWithPath: devices[0].locations.store + suffix))) ?? Data()
        }
        let seen = Canaries.found(canaries, in: local)
        for canary in [canaries[0], canaries[13], canaries[15], canaries[19]] {
            XCTAssertTrue(
                seen.contains(canary), "a canary scan that cannot find \(canary) in the local store proves nothing")
        }
    }
}
