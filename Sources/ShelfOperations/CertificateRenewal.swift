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

    /// The certificate kept at `path` for `publicKey`, if one is there (whatever its validity).
    static func kept(at path: String, publicKey: String) -> SSHCertificate? {
        guard let data = try? RegularFile.read(path, limit: 64 * 1024),
            let blob = IdentityKeys.blob(of: String(decoding: data, as: UTF8.self).trimmingSpacesAndNewlines()),
            let certificate = SSHCertificate(blob: blob), certificate.publicKeyBlob == IdentityKeys.blob(of: publicKey)
        else { return nil }
        return certificate
    }

    /// The certificate kept for `identity` when it is valid at `now` (what a login may still offer when a renewal
    /// could not be made), else nil.
    public static func valid(for identity: Identity, now: UInt64, locations: DataLocations) -> SSHCertificate? {
        guard let certificate = kept(at: path(for: identity.id, locations: locations), publicKey: identity.publicKey),
            certificate.timeProblem(now: now) == nil
        else { return nil }
        return certificate
    }

    /// Whether `certificate` (nil: none kept) needs a new one at `now`.
    static func isDue(_ certificate: SSHCertificate?, validity: UInt64, now: UInt64) -> Bool {
        guard let certificate else { return true }
        let margin = max(60, validity / 4)
        return now < certificate.validAfter || certificate.validBefore <= now || certificate.validBefore - now < margin
    }

    /// Now, in seconds since the epoch: SSHELF_TEST_NOW in tests (as the vault's stamps take it), else the clock.
    public static func now(environment: [String: String]) -> UInt64 {
        if let text = environment["SSHELF_TEST_NOW"], let value = UInt64(text) { return value }
        return UInt64(max(0, Date().timeIntervalSince1970))
    }

    /// The one renewal every login path calls: the certificate `identity` logs in with at `now` — the one kept for
    /// it, issued again by its CA first when missing or near its end (a release-log line naming `by`, and `note`
    /// saying so). Nil when no CA keeps the identity's certificate fresh.
    public static func fresh(
        for identity: Identity, by: String, now: UInt64, workspace: Workspace, store: Store,
        vaultPassphrase: () throws -> SecretBytes, note: (String) -> Void
    ) throws -> (path: String, certificate: SSHCertificate)? {
        guard
            let (authority, tie) = try CertificateAuthorities.all(in: store).lazy.compactMap({ authority in
                authority.tied.first { $0.identityID == identity.id }.map { (authority, $0) }
            }).first
        else { return nil }
        let path = path(for: identity.id, locations: workspace.locations)
        let kept = kept(at: path, publicKey: identity.publicKey)
        if let kept, !isDue(kept, validity: tie.validity, now: now) { return (path, kept) }
        let certificate = try CertificateAuthorities.sign(
            .init(identity: identity, principals: tie.principals, validity: tie.validity, by: by),
            by: authority.name, now: now, workspace: workspace, store: store, vaultPassphrase: vaultPassphrase)
        note(
            "renewed the certificate of identity '\(Display.safe(identity.name))' (CA "
                + "'\(Display.safe(authority.name))', serial \(certificate.serial), valid until "
                + "\(SSHCertificate.timestamp(certificate.validBefore)))")
        return (path, certificate)
    }

    /// `-o CertificateFile=PATH` for OpenSSH's ssh when the session is handed over: the renewed certificate of the
    /// target's identity, which ssh pairs with the sshelf agent's key.
    public static func sshOptions(_ plan: ConnectPlan, locations: DataLocations) -> [String] {
        guard let target = plan.endpoints.last, let identity = target.identity else { return [] }
        let path = path(for: identity.id, locations: locations)
        guard target.settings.certificateFiles.contains(path) else { return [] }
        return ["-o", "CertificateFile=" + path]
    }

    /// Renews the certificates of the plan's tied identities that need it (`fresh`) and has every hop offer its
    /// identity's certificate; `note` says each renewal. `by` names the command in the release log.
    public static func prepare(
        _ plan: inout ConnectPlan, by: String, now: UInt64, workspace: Workspace, store: Store,
        vaultPassphrase: () throws -> SecretBytes, note: (String) -> Void
    ) throws {
        for index in plan.endpoints.indices {
            guard let identity = plan.endpoints[index].identity,
                let (path, _) = try fresh(
                    for: identity, by: by, now: now, workspace: workspace, store: store,
                    vaultPassphrase: vaultPassphrase, note: note)
            else { continue }
            if !plan.endpoints[index].settings.certificateFiles.contains(path) {
                plan.endpoints[index].settings.certificateFiles.append(path)
            }
        }
    }
}
