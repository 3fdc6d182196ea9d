// HostKeyRevocations: what a `RevokedHostKeys` file revokes — an OpenSSH KRL (PROTOCOL.krl: explicit keys, SHA1 and
// SHA256 fingerprints, certificates by serial, serial range, serial bitmap or key ID under their CA, or every
// certificate of a CA) or a plain list of public key lines, as ssh reads either. A file that is neither is refused
// whole (nil), as ssh refuses to connect when it cannot read the file.
import FoundationEssentials

public struct HostKeyRevocations: Sendable, Equatable {
    public var keys: Set<[UInt8]> = []
    public var sha1: Set<[UInt8]> = []
    public var sha256: Set<[UInt8]> = []
    /// Certificates revoked under a CA's key: by serial range (single serials as one-number ranges) and key ID;
    /// `everyCertificate` for a section that names the CA alone (ssh-keygen -k with a CA key and no serials).
    public struct Authority: Sendable, Equatable {
        public var serials: [ClosedRange<UInt64>] = []
        public var keyIDs: Set<String> = []
    }
    public var authorities: [[UInt8]: Authority] = [:]

    public init() {}

    /// Whether the plain key `blob` is revoked (explicitly or by a fingerprint).
    public func revokes(key blob: [UInt8]) -> Bool {
        keys.contains(blob) || sha256.contains(Digest.sha256(blob)) || sha1.contains(Digest.sha1(blob))
    }

    /// Whether a certificate is revoked: its CA key or its own key revoked, or it by serial or key ID under its CA.
    public func revokes(certificate: SSHCertificate) -> Bool {
        if revokes(key: certificate.signatureKey) || revokes(key: certificate.publicKeyBlob) { return true }
        // A section with an empty CA key applies to certificates of any CA.
        return [certificate.signatureKey, []].contains { key in
            guard let authority = authorities[key] else { return false }
            return authority.serials.contains { $0.contains(certificate.serial) }
                || authority.keyIDs.contains(certificate.keyID)
        }
    }

    /// Reads a KRL or a list of public key lines (`type base64 [comment]`, `#` comments and blank lines skipped).
    public static func parse(_ bytes: [UInt8]) -> HostKeyRevocations? {
        if bytes.starts(with: KeyRevocationList.magic) { return parseKRL(bytes) }
        var found = HostKeyRevocations()
        for line in String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingSpaces()
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            guard let blob = IdentityKeys.blob(of: String(trimmed)) else { return nil }
            found.keys.insert(blob)
        }
        return found
    }

    static func parseKRL(_ bytes: [UInt8]) -> HostKeyRevocations? {
        bytes.withUnsafeBytes { raw -> HostKeyRevocations? in
            var reader = SSHWireReader(raw)
            guard reader.take(KeyRevocationList.magic.count) != nil, reader.uint32() == 1,
                reader.take(24) != nil,  // version, generated date, flags
                reader.string(limit: raw.count) != nil, reader.string(limit: raw.count) != nil  // reserved, comment
            else { return nil }
            var found = HostKeyRevocations()
            while !reader.isAtEnd {
                guard let type = reader.byte(), let section = reader.string(limit: raw.count) else { return nil }
                var inner = SSHWireReader(section)
                switch type {
                case 1:  // certificates
                    guard let caKey = inner.bytesString(limit: section.count), inner.string(limit: section.count) != nil
                    else { return nil }
                    var authority = found.authorities[caKey] ?? Authority()
                    var any = false
                    while !inner.isAtEnd {
                        guard let kind = inner.byte(), let body = inner.string(limit: section.count) else { return nil }
                        any = true
                        guard Self.certificateSection(kind, body, into: &authority) else { return nil }
                    }
                    // A CA named with no serials revokes nothing by itself in OpenSSH; ssh-keygen -k writes a CA's
                    // own key as an explicit key instead, which `revokes(key:)` finds.
                    if any { found.authorities[caKey] = authority }
                case 2:  // explicit keys
                    while !inner.isAtEnd {
                        guard let blob = inner.bytesString(limit: section.count) else { return nil }
                        found.keys.insert(blob)
                    }
                case 3, 5:  // SHA1, SHA256 fingerprints
                    while !inner.isAtEnd {
                        guard let hash = inner.bytesString(limit: 64) else { return nil }
                        if type == 3 { found.sha1.insert(hash) } else { found.sha256.insert(hash) }
                    }
                case 4:  // a signature: sshd and ssh do not check it; the list ends there
                    return found
                default:
                    return nil
                }
            }
            return found
        }
    }

    private static func certificateSection(
        _ kind: UInt8, _ body: UnsafeRawBufferPointer, into authority: inout Authority
    )
        -> Bool
    {
        var reader = SSHWireReader(body)
        func uint64() -> UInt64? {
            guard let high = reader.uint32(), let low = reader.uint32() else { return nil }
            return UInt64(high) << 32 | UInt64(low)
        }
        switch kind {
        case 0x20:  // serial list
            while !reader.isAtEnd {
                guard let serial = uint64() else { return false }
                authority.serials.append(serial...serial)
            }
        case 0x21:  // serial range
            guard let low = uint64(), let high = uint64(), low <= high, reader.isAtEnd else { return false }
            authority.serials.append(low...high)
        case 0x22:  // serial bitmap: bit n of the big-endian number is serial offset + n
            guard let offset = uint64(), let bitmap = reader.positiveMPInt(limit: body.count), reader.isAtEnd
            else { return false }
            let count = bitmap.count
            for (index, byte) in bitmap.enumerated() where byte != 0 {
                for bit in 0..<8 where byte & (1 << bit) != 0 {
                    let position = UInt64((count - 1 - index) * 8 + bit)
                    let (serial, overflow) = offset.addingReportingOverflow(position)
                    if !overflow { authority.serials.append(serial...serial) }
                }
            }
        case 0x23:  // key IDs
            while !reader.isAtEnd {
                guard let id = reader.text(limit: body.count) else { return false }
                authority.keyIDs.insert(id)
            }
        default:
            return false
        }
        return true
    }
}
