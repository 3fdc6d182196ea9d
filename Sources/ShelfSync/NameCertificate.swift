// NameCertificate: a device's name in the group, signed by any member in good standing — the device itself or
// another (two devices both called "vm": either renames the other). On the wire it is an `add` a device signs of
// *itself*, so every sshelf that reads rosters parses it and none counts it for membership (an `add` enrolls only a
// device not yet in the roster, signed by one that is); its invite field names the device named (the nil id: the
// signer, which is how self-renames were always written). Rules in docs/SYNC.md, "Device names".
import FoundationEssentials

extension Certificate {
    /// What a name certificate says: `device` is called `name`. `signingKey` must be the signer's own enrolled key.
    struct Naming: Equatable {
        var device: UUID
        var name: String
        var signingKey: [UInt8]
    }

    /// The body that names `device` (the signer itself, or another device), signed by `signer` whose key is `key`.
    static func naming(_ device: UUID, as name: String, signer: UUID, key: [UInt8]) -> Body {
        // A device naming itself writes the nil invite id, as renames always were: older versions show it too.
        .add(
            device: signer, name: name, signingKey: key, invite: device == signer ? Roster.renameInvite : device,
            epochs: [])
    }

    /// The naming this certificate makes, if it is a name certificate.
    var naming: Naming? {
        guard case .add(let device, let name, let key, let invite, _) = body, device == signer else { return nil }
        return Naming(device: invite == Roster.renameInvite ? signer : invite, name: name, signingKey: key)
    }
}

extension Roster {
    /// Why a name certificate does not count, or nil when it does. The trust rule is an `add`'s: the signer is
    /// enrolled, the certificate verifies with its enrolled key, and a signer revoked since counts only where its
    /// revoker kept the certificate (it had accepted it before the revocation). A name never changes membership,
    /// keys or trust; it names a device that was added to the group.
    func refusal(of certificate: Certificate, _ naming: Certificate.Naming) -> String? {
        guard let signer = enrolled[certificate.signer] else { return "its signer is not a member of the group" }
        guard naming.signingKey == signer.signingKey, certificate.isSigned(by: signer.signingKey) else {
            return "it does not verify with its signer's key (forged or altered)"
        }
        if let revocation = revoked[certificate.signer], !revocation.kept.contains(certificate.digest) {
            return "its signer was revoked before signing it"
        }
        guard everMembers[naming.device] != nil else { return "the device it names is not in the group" }
        if let problem = DeviceName.problem(naming.name) { return problem }
        return nil
    }

    /// The name certificates that count (every one, so a revoker keeps those it had accepted, not only the names
    /// that won), each device's that wins (the latest by the signer's time, then digest) and the refused ones.
    func names(
        _ certificates: [Certificate]
    ) -> (counted: Set<[UInt8]>, latest: [UUID: Certificate], refused: [[UInt8]: String]) {
        var counted: Set<[UInt8]> = []
        var latest: [UUID: Certificate] = [:]
        var refused: [[UInt8]: String] = [:]
        for certificate in certificates {
            guard let naming = certificate.naming else { continue }
            if let why = refusal(of: certificate, naming) {
                refused[certificate.digest] = why
                continue
            }
            counted.insert(certificate.digest)
            if let known = latest[naming.device],
                (known.time, known.digest.hex) >= (certificate.time, certificate.digest.hex)
            {
                continue
            }
            latest[naming.device] = certificate
        }
        return (counted, latest, refused)
    }
}
