// CertificateRenewal: identities tied to a CA (`ca sign … --renew`) keep a fresh user certificate — checked before a
// login, re-issued by the CA in the vault when it is missing or near its end (the last quarter of its validity, or
// its last minute), written where the login offers it, and logged like any issue (by the command that connects).
import FoundationEssentials
import ShelfCore
import ShelfSSH
import ShelfStore
import ShelfSystem

public enum CertificateRenewal {
    /// Where the certificate of a tied identity is kept (public data, mode 0600 in a 0700 folder).
    public static func path(for identityID: UUID, locations: DataLocations) -> String {
        locations.dataDirectory + "/certificates/" + identityID.uuidString.lowercased() + "-cert.pub"
    }

    static func write(_ certificate: SSHCertificate, identity: Identity, locations: DataLocations) throws {
        let path = path(for: identity.id, locations: locations)
        do {
            try PrivateFiles.ensureDirectory(path.parentPath)
            try PrivateFiles.atomicWrite(
                Data((CertificateAuthorities.line(certificate, comment: identity.name + "-cert") + "\n").utf8),
                to: path)
        } catch {
            throw ShelfError(.storage, "could not write \(path): \(error)")
        }
    }

    /// Whether the certificate kept at `path` for `publicKey` needs a new one at `now`.
    static func needsRenewal(at path: String, publicKey: String, validity: UInt64, now: UInt64) -> Bool {
        guard let data = try? RegularFile.read(path, limit: 64 * 1024),
            let blob = IdentityKeys.blob(of: String(decoding: data, as: UTF8.self).trimmingSpacesAndNewlines()),
            let certificate = SSHCertificate(blob: blob), certificate.publicKeyBlob == IdentityKeys.blob(of: publicKey)
        else { return true }
        let margin = max(60, validity / 4)
        return now < certificate.validAfter || certificate.validBefore <= now || certificate.validBefore - now < margin
    }

    /// `-o CertificateFile=PATH` for OpenSSH's ssh when the session is handed over: the renewed certificate of the
    /// target's identity, which ssh pairs with the sshelf agent's key.
    public static func sshOptions(_ plan: ConnectPlan, locations: DataLocations) -> [String] {
        guard let target = plan.endpoints.last, let identity = target.identity else { return [] }
        let path = path(for: identity.id, locations: locations)
        guard target.settings.certificateFiles.contains(path) else { return [] }
        return ["-o", "CertificateFile=" + path]
    }

    /// Renews the certificates of the plan's tied identities that need it and has every hop offer its identity's
    /// certificate; `note` says each renewal. `by` names the command in the release log.
    public static func prepare(
        _ plan: inout ConnectPlan, by: String, now: UInt64, workspace: Workspace, store: Store,
        vaultPassphrase: () throws -> SecretBytes, note: (String) -> Void
    ) throws {
        let tied = try CertificateAuthorities.all(in: store).flatMap { authority in
            authority.tied.map { (authority: authority, tie: $0) }
        }
        guard !tied.isEmpty else { return }
        for index in plan.endpoints.indices {
            guard let identity = plan.endpoints[index].identity,
                let (authority, tie) = tied.first(where: { $0.tie.identityID == identity.id })
            else { continue }
            let path = path(for: identity.id, locations: workspace.locations)
            if needsRenewal(at: path, publicKey: identity.publicKey, validity: tie.validity, now: now) {
                let certificate = try CertificateAuthorities.sign(
                    .init(identity: identity, principals: tie.principals, validity: tie.validity, by: by),
                    by: authority.name, now: now, workspace: workspace, store: store,
                    vaultPassphrase: vaultPassphrase)
                note(
                    "renewed the certificate of identity '\(Display.safe(identity.name))' (CA "
                        + "'\(Display.safe(authority.name))', serial \(certificate.serial), valid until "
                        + "\(SSHCertificate.timestamp(certificate.validBefore)))")
            }
            if !plan.endpoints[index].settings.certificateFiles.contains(path) {
                plan.endpoints[index].settings.certificateFiles.append(path)
            }
        }
    }
}
