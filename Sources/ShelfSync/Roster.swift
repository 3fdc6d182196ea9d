// Roster: who belongs to the sync group, computed from the certificates this device holds and the genesis it
// trusts (its anchor) — never from one file on the remote. A device is enrolled when an enrolled device added it
// (a revoked device's additions count only if its revoker kept them); a revocation from any device that was ever
// enrolled is final; an epoch is clean while no device holding its key is revoked. Rules in docs/SYNC.md.
import FoundationEssentials
import ShelfVault

struct Roster {
    struct Member: Equatable {
        var device: UUID
        var name: String
        var signingKey: [UInt8]
        var boxKey: [UInt8]
        /// Nil for the device that created the group.
        var addedBy: UUID?
        var addedAt: Int64
        var certificate: [UInt8]
    }

    struct Revocation: Equatable {
        var device: UUID
        /// The revoked device's entries up to here stand (the highest any revoker had verified).
        var upTo: Int64
        var upToDigest: [UInt8]
        /// Certificates the revoked device signed that its revokers had accepted (its later ones never count).
        var kept: Set<[UInt8]>
        var by: UUID
        var at: Int64
    }

    struct Epoch: Equatable {
        var id: UUID
        var number: UInt32
        var creator: UUID
        var createdAt: Int64
        /// Every device that holds (or was sent) the key: its creator, senders and receivers of shares, and devices
        /// whose invite carried it.
        var holders: Set<UUID>
        /// Sealed copies of the key, by recipient.
        var shares: [UUID: [UInt8]]

        /// Writers choose the greatest epoch: by number, then by creator.
        func isGreater(than other: Epoch) -> Bool {
            number != other.number ? number > other.number : creator.lowerText > other.creator.lowerText
        }
    }

    let group: UUID
    let founder: UUID?
    /// Devices added through certificates, ignoring revocations: whose revocations count.
    private(set) var everMembers: [UUID: Member] = [:]
    /// Devices enrolled (revoked ones included: their entries up to the revocation stand).
    private(set) var enrolled: [UUID: Member] = [:]
    private(set) var revoked: [UUID: Revocation] = [:]
    private(set) var epochs: [UUID: Epoch] = [:]
    /// Digests of certificates that count.
    private(set) var accepted: Set<[UInt8]> = []
    /// Invites used up, each with the device it enrolled: an `add` names its invite, so an invite is spent in the
    /// signed roster itself — whatever files the remote keeps or puts back, no second device is enrolled with it.
    private(set) var spentInvites: [UUID: UUID] = [:]
    /// Certificates with a signature from no known device yet (kept until one is).
    private(set) var unverified = 0
    /// Name certificates that do not count, by digest, with why (a sync run names each when it arrives).
    private(set) var refusedNames: [[UInt8]: String] = [:]

    /// Devices added only by a device after its revocation (or by such a device, and so on): never members. What they
    /// wrote is undone wherever it was taken before the revocation was known, and never taken after.
    var disenrolled: [UUID: Member] { everMembers.filter { enrolled[$0.key] == nil } }

    /// Whether values signed by `device` can never count: a device enrolled only through a revoked device's late
    /// addition.
    func isDisenrolled(_ device: UUID) -> Bool { everMembers[device] != nil && enrolled[device] == nil }

    /// A device that may write: enrolled and not revoked.
    func isActive(_ device: UUID) -> Bool { enrolled[device] != nil && revoked[device] == nil }

    var activeMembers: [Member] {
        enrolled.values.filter { revoked[$0.device] == nil }.sorted { $0.device.lowerText < $1.device.lowerText }
    }

    /// Whether `device`'s entry `seq` may be accepted.
    func mayWrite(_ device: UUID, seq: Int64) -> Bool {
        guard enrolled[device] != nil else { return false }
        guard let revocation = revoked[device] else { return true }
        return seq <= revocation.upTo
    }

    func isClean(_ epoch: Epoch) -> Bool { epoch.holders.allSatisfy { revoked[$0] == nil } }

    func name(of device: UUID) -> String {
        enrolled[device]?.name ?? everMembers[device]?.name ?? String(device.lowerText.prefix(8))
    }

    /// The roster from `certificates`, starting at the genesis whose digest is `anchor`.
    init(group: UUID, anchor: [UInt8], certificates: [Certificate]) {
        self.group = group
        let mine = certificates.filter { $0.group == group }.sorted { $0.digest.lexicographicallyPrecedes($1.digest) }
        guard let genesis = mine.first(where: { $0.digest == anchor }), case .genesis(let name, let key) = genesis.body,
            genesis.isSigned(by: key), let boxKey = SyncCrypto.boxPublicKey(signingPublicKey: key)
        else {
            founder = nil
            unverified = mine.count
            return
        }
        founder = genesis.signer
        let first = Member(
            device: genesis.signer, name: name, signingKey: key, boxKey: boxKey, addedBy: nil, addedAt: genesis.time,
            certificate: genesis.digest)
        accepted = [genesis.digest]

        // Who was ever added (revocations aside): the devices whose revocations count.
        everMembers = [genesis.signer: first]
        var grew = true
        while grew {
            grew = false
            for cert in mine {
                guard case .add(let device, let name, let key, let invite, _) = cert.body, everMembers[device] == nil,
                    let signer = everMembers[cert.signer], cert.isSigned(by: signer.signingKey),
                    let box = SyncCrypto.boxPublicKey(signingPublicKey: key)
                else { continue }
                everMembers[device] = Member(
                    device: device, name: name, signingKey: key, boxKey: box, addedBy: cert.signer,
                    addedAt: cert.time, certificate: cert.digest)
                if spentInvites[invite] == nil { spentInvites[invite] = device }
                grew = true
            }
        }
        for cert in mine {
            guard case .revoke(let device, let upTo, let digest, let kept) = cert.body,
                let signer = everMembers[cert.signer],
                cert.isSigned(by: signer.signingKey), upTo <= UInt64(Int64.max)
            else { continue }
            accepted.insert(cert.digest)
            if var known = revoked[device] {
                if Int64(upTo) > known.upTo {
                    known.upTo = Int64(upTo)
                    known.upToDigest = digest
                }
                known.kept.formUnion(kept)
                if cert.time < known.at {
                    known.at = cert.time
                    known.by = cert.signer
                }
                revoked[device] = known
            } else {
                revoked[device] = Revocation(
                    device: device, upTo: Int64(upTo), upToDigest: digest, kept: Set(kept), by: cert.signer,
                    at: cert.time)
            }
        }

        // Who is enrolled: added by an enrolled device that was not revoked, or whose revoker kept the addition.
        enrolled = [genesis.signer: first]
        grew = true
        while grew {
            grew = false
            for cert in mine {
                guard case .add(let device, _, let key, _, _) = cert.body, enrolled[device] == nil,
                    let signer = enrolled[cert.signer], cert.isSigned(by: signer.signingKey),
                    revoked[cert.signer].map({ $0.kept.contains(cert.digest) }) ?? true,
                    let member = everMembers[device], member.signingKey == key
                else { continue }
                enrolled[device] = member
                accepted.insert(cert.digest)
                grew = true
            }
        }

        // Epochs and who holds their keys.
        for cert in mine {
            guard case .epoch(let id, let number) = cert.body, let signer = everMembers[cert.signer],
                cert.isSigned(by: signer.signingKey), epochs[id] == nil
            else { continue }
            epochs[id] = Epoch(
                id: id, number: number, creator: cert.signer, createdAt: cert.time, holders: [cert.signer], shares: [:])
            accepted.insert(cert.digest)
        }
        for cert in mine {
            guard case .share(let epoch, let recipient, let sealed) = cert.body, let signer = everMembers[cert.signer],
                cert.isSigned(by: signer.signingKey), epochs[epoch] != nil
            else { continue }
            epochs[epoch]?.holders.formUnion([cert.signer, recipient])
            if epochs[epoch]?.shares[recipient] == nil { epochs[epoch]?.shares[recipient] = sealed }
            accepted.insert(cert.digest)
        }
        for member in everMembers.values {
            guard let cert = mine.first(where: { $0.digest == member.certificate }),
                case .add(_, _, _, _, let carried) = cert.body
            else { continue }
            for epoch in carried { epochs[epoch]?.holders.insert(member.device) }
        }
        applyNames(mine)
        unverified = mine.filter { everMembers[$0.signer] == nil }.count
    }

    /// The invite id of a name certificate a device signs for itself (see NameCertificate).
    static let renameInvite = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    /// Names from name certificates (NameCertificate): the latest that counts for each device. Two devices renamed
    /// to one name at the same time stay apart: the later rename gets the start of its device's id added, as a
    /// joining device does. Membership, keys and invites are untouched.
    private mutating func applyNames(_ certificates: [Certificate]) {
        let (counted, latest, refused) = names(certificates)
        refusedNames = refused
        accepted.formUnion(counted)
        for (device, certificate) in latest {
            guard let naming = certificate.naming else { continue }
            everMembers[device]?.name = naming.name
            enrolled[device]?.name = naming.name
        }
        let newestFirst = latest.values.sorted { ($0.time, $0.digest.hex) > ($1.time, $1.digest.hex) }
        for certificate in newestFirst {
            guard let device = certificate.naming?.device, let name = everMembers[device]?.name else { continue }
            let told = distinct(name, for: device)
            everMembers[device]?.name = told
            enrolled[device]?.name = told
        }
    }

    /// `name`, or `name-XXXX` (the start of `device`'s id) when another device of the group has that name already.
    func distinct(_ name: String, for device: UUID) -> String {
        let taken = everMembers.values.contains {
            $0.device != device && $0.name.lowercased() == name.lowercased()
        }
        return taken ? Certificate.clip(name).prefix(Certificate.maxName - 5) + "-" + device.lowerText.prefix(4) : name
    }

    /// The epoch this device should seal with: the greatest clean epoch whose key it holds and whose creator is
    /// not revoked. Nil when it holds none.
    func writeEpoch(held: Set<UUID>) -> Epoch? {
        epochs.values.filter { held.contains($0.id) && isClean($0) && revoked[$0.creator] == nil }
            .reduce(nil as Epoch?) { best, epoch in best.map { epoch.isGreater(than: $0) ? epoch : $0 } ?? epoch }
    }

    /// A clean epoch newer than any this device holds (its key will be shared with this device).
    func awaitedEpoch(held: Set<UUID>) -> Epoch? {
        let best = writeEpoch(held: held)
        return epochs.values.filter {
            !held.contains($0.id) && isClean($0) && revoked[$0.creator] == nil && isActive($0.creator)
        }
        .filter { epoch in best.map { epoch.isGreater(than: $0) } ?? true }
        .max { $1.isGreater(than: $0) }
    }

    /// The number a new epoch gets: one more than any epoch made by a device not revoked.
    var nextEpochNumber: UInt32 {
        let numbers = epochs.values.filter { revoked[$0.creator] == nil }.map(\.number)
        return (numbers.max() ?? 0) &+ 1
    }
}
