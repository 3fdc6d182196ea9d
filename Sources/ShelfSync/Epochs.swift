// Epochs: which group key this device seals its entries under, and making sure every enrolled device can read
// them. The greatest clean epoch it holds is used (clean: no device holding the key was ever revoked); a member
// that lacks it is sent it, sealed to its box key; with no clean epoch at all (after a revocation) a new one is
// made and shared with every remaining member. Concurrent rotations settle on the greatest (number, creator).
import FoundationEssentials
import ShelfCore
import ShelfVault

struct Epochs {
    let session: SyncSession

    enum Choice {
        case write(epoch: UUID, key: SecretBytes)
        /// A newer clean key exists and will be shared with this device; it holds none it may write under now.
        case waiting(for: Roster.Epoch)
    }

    /// The epoch to write under, making one (or sharing one) when the roster needs it.
    func prepare() throws -> Choice {
        try session.collectShares()
        var roster = session.roster
        if let epoch = roster.writeEpoch(held: session.heldEpochs), let key = try session.epochKey(epoch.id) {
            try shareMissing(epoch, key: key)
            return .write(epoch: epoch.id, key: key)
        }
        if let awaited = roster.awaitedEpoch(held: session.heldEpochs) { return .waiting(for: awaited) }
        let id = UUID()
        let key = SyncCrypto.randomKey()
        try session.store(epochKey: key, id)
        _ = try session.issue(.epoch(id: id, number: roster.nextEpochNumber))
        roster = session.roster
        guard let epoch = roster.epochs[id] else { throw SyncFailure("a new group key could not be made") }
        try shareMissing(epoch, key: key)
        return .write(epoch: id, key: key)
    }

    /// Shares `epoch`'s key with every active member not known to hold it.
    func shareMissing(_ epoch: Roster.Epoch, key: SecretBytes) throws {
        for member in session.roster.activeMembers where !epoch.holders.contains(member.device) {
            guard let sealed = SyncCrypto.sealedBox(key, to: member.boxKey) else { continue }
            _ = try session.issue(.share(epoch: epoch.id, recipient: member.device, sealedKey: sealed))
        }
    }
}
