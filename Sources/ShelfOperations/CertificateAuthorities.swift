// CertificateAuthorities: sshelf's own SSH certificate authorities (`sshelf ca`) — a CA's key made in the vault, its
// public line for sshd's TrustedUserCAKeys, and user certificates issued for vault identities: serials counted per
// CA, every issue kept (for `ca list` and revocation) and written to the release log before it is handed back.
// A CA lives on the device that made it: its record is a setting of this device's store, its key a device secret.
import FoundationEssentials
import ShelfCore
import ShelfStore
import ShelfVault

/// A CA as this device's store keeps it (public data only).
public struct CertificateAuthority: Codable, Sendable, Equatable {
    public var id: UUID
    public var name: String
    /// `ssh-ed25519 AAAA… sshelf-ca:NAME`: the line for TrustedUserCAKeys or a `@cert-authority` line.
    public var publicKey: String
    /// The serial the next certificate gets (serials start at 1; 0 is never issued).
    public var nextSerial: UInt64
    public var issued: [IssuedCertificate]
    /// Serials `ca revoke` revoked, and identities it revoked (no certificate is issued to them again).
    public var revokedSerials: [UInt64]
    public var revokedIdentities: [UUID]
    /// Identities whose certificate is kept fresh (`ca sign … --renew`): renewed before a login that needs it.
    public var tied: [TiedIdentity]
}

/// An identity a CA keeps a certificate fresh for: the principals and validity each renewal gets.
public struct TiedIdentity: Codable, Sendable, Equatable {
    public var identityID: UUID
    public var principals: [String]
    public var validity: UInt64
}

/// One certificate a CA issued.
public struct IssuedCertificate: Codable, Sendable, Equatable {
    public var serial: UInt64
    /// The identity it was issued to (its name then), and the certified public key line.
    public var identity: String
    public var identityID: UUID
    public var publicKey: String
    public var principals: [String]
    public var validAfter: UInt64
    public var validBefore: UInt64
}

public enum CertificateAuthorities {
    static let settingPrefix = "ca."
    /// The longest validity `ca sign` issues: certificates are meant to be short-lived and renewed.
    public static let longestValidity: UInt64 = 366 * 86_400

    public static func all(in store: Store) throws -> [CertificateAuthority] {
        try store.settings(prefix: settingPrefix).compactMap { decode($0.value) }.sorted { $0.name < $1.name }
    }

    public static func named(_ name: String, in store: Store) throws -> CertificateAuthority {
        guard let text = try store.setting(settingPrefix + name), let authority = decode(text) else {
            let known = try all(in: store).map(\.name)
            throw ShelfError(
                .notFound, "no certificate authority named '\(Display.safe(name))'",
                hint: known.isEmpty
                    ? "create one: sshelf ca init \(ShellWord.quote(Display.safe(name)))"
                    : "the CAs on this device: \(known.map { Display.safe($0) }.joined(separator: ", "))")
        }
        return authority
    }

    /// Makes a CA: its key in the vault (device-only, the policy's class), its record in the store.
    public static func create(
        named name: String, workspace: Workspace, store: Store, vaultPassphrase: () throws -> SecretBytes
    ) throws -> CertificateAuthority {
        if let problem = nameProblem(name) { throw ShelfError(.invalid, problem, hint: "e.g. sshelf ca init team") }
        if try store.setting(settingPrefix + name) != nil {
            throw ShelfError(
                .invalid, "a certificate authority named '\(Display.safe(name))' exists already",
                hint: "choose another name, or print it: sshelf ca show \(ShellWord.quote(name))")
        }
        let keyClass = ClassPolicy.accessibility(for: .caPrivateKey, readAt: .interactive)
        let vault = try VaultAccess.open(workspace, create: true)
        try VaultAccess.unlockIfNeeded(vault, for: [keyClass], passphrase: vaultPassphrase)
        let id = UUID()
        let publicKey = try vault.createCertificateAuthority(
            id: id, comment: "sshelf-ca:" + name, class: keyClass, by: "ca init", detail: "CA '\(name)'")
        let authority = CertificateAuthority(
            id: id, name: name, publicKey: publicKey, nextSerial: 1, issued: [], revokedSerials: [],
            revokedIdentities: [], tied: [])
        try save(authority, in: store)
        return authority
    }

    /// What `ca sign` asks for.
    public struct Request: Sendable {
        public var identity: Identity
        public var principals: [String]
        /// Seconds the certificate is valid from now (it is valid from a minute before now, for clocks that lag).
        public var validity: UInt64
        public var by: String
        /// Tie the identity to the CA: its certificate is renewed before a login that needs it.
        public var keepRenewed: Bool
        public init(identity: Identity, principals: [String], validity: UInt64, by: String, keepRenewed: Bool = false) {
            self.identity = identity
            self.principals = principals
            self.validity = validity
            self.by = by
            self.keepRenewed = keepRenewed
        }
    }

    /// Issues a user certificate for `request.identity`'s public key, signed inside the vault by `authority`'s key;
    /// the serial is taken and the issue recorded in one store transaction after the release log has its line.
    public static func sign(
        _ request: Request, by authorityName: String, now: UInt64, workspace: Workspace, store: Store,
        vaultPassphrase: () throws -> SecretBytes
    ) throws -> SSHCertificate {
        let identity = request.identity
        guard let blob = IdentityKeys.blob(of: identity.publicKey), blob.count > 4 else {
            throw ShelfError(
                .notFound, "identity '\(Display.safe(identity.name))' has no public key recorded",
                hint: "import its key again: sshelf identity import \(ShellWord.quote(identity.name)) FILE")
        }
        let (keyType, keyFields) = try keyParts(blob, identity: identity.name)
        let principals = request.principals
        if principals.isEmpty || principals.contains(where: { $0.isEmpty || $0.contains(",") || $0.contains(" ") }) {
            throw ShelfError(
                .invalid, "--principals needs one or more user names, separated by commas",
                hint: "e.g. --principals deploy,root")
        }
        guard request.validity >= 60, request.validity <= longestValidity else {
            throw ShelfError(.invalid, "--valid must be between 1m and 366d", hint: "e.g. --valid 8h")
        }
        let vault = try VaultAccess.open(workspace, create: false)
        // Asked before the store's transaction starts: a prompt must not hold the store's lock.
        let chosen = try named(authorityName, in: store)
        if let stored = try vault.storedClass(of: .caPrivateKey(chosen.id)) {
            try VaultAccess.unlockIfNeeded(vault, for: [stored], passphrase: vaultPassphrase)
        }
        if chosen.revokedIdentities.contains(identity.id) {
            throw ShelfError(
                .invalid,
                "the CA '\(Display.safe(chosen.name))' revoked identity '\(Display.safe(identity.name))'; "
                    + "it issues it no certificate",
                hint: "give the person a new identity: sshelf keygen NAME")
        }
        return try store.write { store in
            var authority = try named(authorityName, in: store)
            let serial = authority.nextSerial
            let unsigned = SSHCertificate(
                keyType: keyType, nonce: [], keyFields: keyFields, serial: serial, kind: .user,
                keyID: "sshelf:\(authority.name):\(identity.name):\(serial)", principals: principals,
                validAfter: now > 60 ? now - 60 : 0, validBefore: now + request.validity,
                extensions: standardExtensions, signatureKey: [])
            let entry = ReleaseEntry(
                what: "certificate", item: ReferenceKey.caPrivateKey(authority.id).rawValue, by: request.by,
                detail: "CA '\(authority.name)' serial \(serial) for identity '\(identity.name)' principals "
                    + "\(principals.joined(separator: ",")) valid \(SSHCertificate.timestamp(unsigned.validAfter)) to "
                    + SSHCertificate.timestamp(unsigned.validBefore))
            let certificate = try signed(unsigned, authority: authority, entry: entry, vault: vault)
            authority.nextSerial = serial + 1
            authority.issued.append(
                IssuedCertificate(
                    serial: serial, identity: identity.name, identityID: identity.id, publicKey: identity.publicKey,
                    principals: principals, validAfter: certificate.validAfter,
                    validBefore: certificate.validBefore))
            if request.keepRenewed {
                authority.tied.removeAll { $0.identityID == identity.id }
                authority.tied.append(
                    TiedIdentity(identityID: identity.id, principals: principals, validity: request.validity))
            }
            try save(authority, in: store)
            if authority.tied.contains(where: { $0.identityID == identity.id }) {
                try CertificateRenewal.write(certificate, identity: identity, locations: workspace.locations)
            }
            return certificate
        }
    }

    /// Revokes serial `word`, or every certificate issued to the identity named `word` (and any it would get), and
    /// returns the CA's whole revocation list (PROTOCOL.krl) for sshd's RevokedKeys.
    public static func revoke(_ word: String, by authorityName: String, now: UInt64, store: Store) throws -> (
        revoked: [UInt64], list: KeyRevocationList
    ) {
        try store.write { store in
            var authority = try named(authorityName, in: store)
            var revoked: [UInt64]
            if let serial = UInt64(word) {
                guard authority.issued.contains(where: { $0.serial == serial }) else {
                    throw ShelfError(
                        .notFound,
                        "the CA '\(Display.safe(authority.name))' issued no certificate with serial \(serial)",
                        hint: "its certificates: sshelf ca list")
                }
                revoked = [serial]
            } else {
                let identity = try Resolve.identity(word, in: store)
                revoked = authority.issued.filter { $0.identityID == identity.id }.map(\.serial)
                if !authority.revokedIdentities.contains(identity.id) {
                    authority.revokedIdentities.append(identity.id)
                }
            }
            authority.revokedSerials = Array(Set(authority.revokedSerials + revoked)).sorted()
            try save(authority, in: store)
            return (revoked, try revocationList(authority, now: now))
        }
    }

    /// The CA's revocation list as it stands.
    public static func revocationList(_ authority: CertificateAuthority, now: UInt64) throws -> KeyRevocationList {
        guard let caKey = IdentityKeys.blob(of: authority.publicKey) else {
            throw ShelfError(.storage, "the CA '\(Display.safe(authority.name))' has no readable public key")
        }
        return KeyRevocationList(
            version: UInt64(authority.revokedSerials.count + authority.revokedIdentities.count), generated: now,
            comment: "sshelf CA \(authority.name)", serials: [(caKey, authority.revokedSerials)])
    }

    /// Issues a host certificate for the host public key line `publicKey` (a host's ssh_host_*_key.pub), for the
    /// host names in `principals`: signed inside the vault, logged, its serial counted like a user certificate's.
    public static func signHost(
        publicKey: String, principals: [String], validity: UInt64, by authorityName: String, now: UInt64,
        workspace: Workspace, store: Store, vaultPassphrase: () throws -> SecretBytes
    ) throws -> SSHCertificate {
        guard let blob = IdentityKeys.blob(of: publicKey) else {
            throw ShelfError(
                .invalid, "that file holds no public key line",
                hint: "give the host key's .pub file, e.g. /etc/ssh/ssh_host_ed25519_key.pub")
        }
        let (keyType, keyFields) = try keyParts(blob, identity: "of the host")
        if principals.isEmpty || principals.contains(where: { $0.isEmpty || $0.contains(",") || $0.contains(" ") }) {
            throw ShelfError(
                .invalid, "--principals needs the host's names, separated by commas",
                hint: "e.g. --principals db.example.org,10.0.0.5")
        }
        guard validity >= 60, validity <= longestValidity else {
            throw ShelfError(.invalid, "--valid must be between 1m and 366d", hint: "e.g. --valid 90d")
        }
        let vault = try VaultAccess.open(workspace, create: false)
        let chosen = try named(authorityName, in: store)
        if let stored = try vault.storedClass(of: .caPrivateKey(chosen.id)) {
            try VaultAccess.unlockIfNeeded(vault, for: [stored], passphrase: vaultPassphrase)
        }
        return try store.write { store in
            var authority = try named(authorityName, in: store)
            let serial = authority.nextSerial
            let unsigned = SSHCertificate(
                keyType: keyType, nonce: [], keyFields: keyFields, serial: serial, kind: .host,
                keyID: "sshelf:\(authority.name):host:\(serial)", principals: principals,
                validAfter: now > 60 ? now - 60 : 0, validBefore: now + validity, signatureKey: [])
            let entry = ReleaseEntry(
                what: "host certificate", item: ReferenceKey.caPrivateKey(authority.id).rawValue, by: "ca sign-host",
                detail: "CA '\(authority.name)' serial \(serial) for host key "
                    + "\(IdentityKeys.fingerprint(of: publicKey) ?? "?") "
                    + "principals \(principals.joined(separator: ",")) valid "
                    + "\(SSHCertificate.timestamp(unsigned.validAfter)) to "
                    + SSHCertificate.timestamp(unsigned.validBefore))
            let certificate = try signed(unsigned, authority: authority, entry: entry, vault: vault)
            authority.nextSerial = serial + 1
            try save(authority, in: store)
            return certificate
        }
    }

    static func signed(_ unsigned: SSHCertificate, authority: CertificateAuthority, entry: ReleaseEntry, vault: Vault)
        throws -> SSHCertificate
    {
        switch vault.signCertificate(unsigned, caID: authority.id, logging: entry) {
        case .success(let signed):
            return signed
        case .failure(.notStored):
            throw ShelfError(
                .notFound, "this device's vault holds no key for the CA '\(Display.safe(authority.name))'",
                hint: "a CA signs only on the device that made it: run this there")
        case .failure(.locked(let locked)):
            throw ShelfError(
                .failure, "the CA's key is in the locked class \(locked)", hint: "unlock the vault: sshelf vault unlock"
            )
        case .failure(.unusable(let why)):
            throw ShelfError(.failure, "could not sign with the CA '\(Display.safe(authority.name))': \(why)")
        }
    }

    /// The extensions ssh-keygen gives a user certificate by default, in the lexical order OpenSSH requires.
    static let standardExtensions = [
        "permit-X11-forwarding", "permit-agent-forwarding", "permit-port-forwarding", "permit-pty", "permit-user-rc",
    ].map { SSHCertificate.Option(name: $0) }

    /// A certificate line as a `-cert.pub` file holds it.
    public static func line(_ certificate: SSHCertificate, comment: String) -> String {
        "\(certificate.type) \(Data(certificate.blob).base64EncodedString()) \(comment)"
    }

    static func keyParts(_ blob: [UInt8], identity: String) throws -> (String, [UInt8]) {
        let parsed: (String, Int)? = blob.withUnsafeBytes { raw in
            var reader = SSHWireReader(raw)
            guard let type = reader.text(limit: 128) else { return nil }
            return (type, reader.offset)
        }
        guard let (type, offset) = parsed,
            ["ssh-ed25519", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521", "ssh-rsa"]
                .contains(type)
        else {
            throw ShelfError(
                .invalid, "identity '\(Display.safe(identity))' has a key sshelf cannot certify",
                hint: "use an ed25519 key: sshelf keygen NAME")
        }
        return (type, Array(blob[offset...]))
    }

    static func nameProblem(_ name: String) -> String? {
        let allowed = name.unicodeScalars.allSatisfy { scalar in
            (scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)))
                || "-_.".unicodeScalars.contains(scalar)
        }
        if name.isEmpty || name.count > 64 || !allowed || name.hasPrefix("-") {
            return "'\(Display.safe(name))' is not a CA name: use up to 64 letters, digits, '-', '_' or '.'"
        }
        return nil
    }

    static func save(_ authority: CertificateAuthority, in store: Store) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try store.setSetting(
            settingPrefix + authority.name, String(decoding: try encoder.encode(authority), as: UTF8.self))
    }

    static func decode(_ text: String) -> CertificateAuthority? {
        try? JSONDecoder().decode(CertificateAuthority.self, from: Data(text.utf8))
    }
}
