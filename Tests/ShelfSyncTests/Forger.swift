// Forger: the attacker's workbench for the sync tests. It writes entries and certificates in the exact format the
// engine reads, with whatever keys the scenario gives the attacker: by default the group's symmetric keys (as if
// they had leaked) and the signing key of the device it starts from — so a test shows which check refuses what,
// not merely that a random file does not parse.
import Foundation
import ShelfCore
import ShelfStore
@testable import ShelfSync
import ShelfVault
import TestSupport
import XCTest

struct Forger {
    let remote: String
    let group: UUID
    let anchor: [UInt8]
    let groupSecret: SecretBytes
    let epoch: UUID
    let epochKey: SecretBytes
    /// Whose key signs (a stolen one, or a made-up one).
    var keys: SyncCrypto.DeviceKeys

    /// Starts from `device`: its remote, its group's keys, its signing key.
    init(_ device: Device) throws {
        guard let settings = try SyncSettings.load(from: device.store), let state = try GroupState.load(device.store)
        else {
            throw HarnessError("\(device.name) has no sync group")
        }
        remote = settings.location
        group = state.group
        anchor = state.anchor
        groupSecret = try XCTUnwrap(
            device.vault.loadGroupSecret(state.group, class: .afterFirstUnlockThisDeviceOnly).secret)
        let epochs = try device.vault.epochKeyIDs()
        let written = try device.store.setting("sync.epoch.written").flatMap(UUID.init(uuidString:))
        epoch = try XCTUnwrap(written ?? epochs.first, "\(device.name) holds no epoch key")
        epochKey = try XCTUnwrap(device.vault.loadEpochKey(epoch, class: .afterFirstUnlockThisDeviceOnly).secret)
        keys = try device.keys()
    }

    /// A signing key nobody enrolled.
    static func strangerKeys() throws -> SyncCrypto.DeviceKeys {
        try XCTUnwrap(SyncCrypto.DeviceKeys(seed: SyncCrypto.randomKey()))
    }

    /// An entry for `device`'s chain.
    func entry(
        device: String, seq: Int64, previous: [UInt8] = EntryHeader.noPrevious, records: [SyncRecord],
        certificates: [Certificate] = [], snapshot: Bool = false, epoch: UUID? = nil, epochKey: SecretBytes? = nil
    ) throws -> Entry {
        let header = EntryHeader(
            group: group, device: try XCTUnwrap(UUID(uuidString: device)), seq: UInt64(seq), previous: previous,
            epoch: epoch ?? self.epoch, snapshot: snapshot)
        return Entry(
            header: header, roster: RosterSection.encode(certificates), rosterKey: SyncKeys.roster(groupSecret),
            content: try EntryContent(records: records, credentials: nil).encode(),
            contentKey: SyncKeys.content(epochKey ?? self.epochKey), keys: keys)
    }

    /// Writes an entry into `device`'s folder (default: the device whose keys sign).
    func write(
        records: [SyncRecord], seq: Int64, device: String, previous: [UInt8] = EntryHeader.noPrevious,
        certificates: [Certificate] = [], snapshot: Bool = false
    ) throws {
        let forged = try entry(
            device: device, seq: seq, previous: previous, records: records, certificates: certificates,
            snapshot: snapshot)
        try place(forged.bytes, device: device, seq: seq)
    }

    func place(_ bytes: [UInt8], device: String, seq: Int64) throws {
        let layout = RemoteLayout(root: remote)
        try FileManager.default.createDirectory(
            atPath: layout.deviceDirectory(device), withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: layout.entryPath(device, seq)))
    }

    /// A certificate signed with this forger's key, claiming `signer`.
    func certificate(_ body: Certificate.Body, signer: UUID) -> Certificate {
        Certificate(group: group, signer: signer, time: HybridLogicalClock.milliseconds(Date()), body: body, keys: keys)
    }

    /// A host as a record stamped by `device` at `wall` (far in the future unless told: it would win every merge).
    static func record(_ host: ShelfCore.Host, by device: String, wall: Int64 = 9_999_999_999_999) throws -> SyncRecord
    {
        let body = try JSONDecoder().decode([String: JSONValue].self, from: try ShelfJSON.encoder().encode(host))
        return SyncRecord(
            kind: .host, id: host.id,
            clock: .uniform(GroupStamp(stamp: ClockStamp(wall: wall, counter: 0, device: device)), kind: .host),
            body: body)
    }

    /// The bytes and digest of a device's entry as it is on the remote.
    func existing(_ device: String, _ seq: Int64) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: RemoteLayout(root: remote).entryPath(device, seq))))
    }
}
