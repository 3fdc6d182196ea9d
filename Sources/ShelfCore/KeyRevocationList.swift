// KeyRevocationList: an OpenSSH key revocation list (PROTOCOL.krl) as sshd's RevokedKeys and `ssh-keygen -Q` read
// it — certificates revoked by serial under their CA's key. Unsigned: sshd does not check a KRL's signature.
public struct KeyRevocationList: Sendable {
    /// "SSHKRL\n\0".
    public static let magic: [UInt8] = [0x53, 0x53, 0x48, 0x4b, 0x52, 0x4c, 0x0a, 0x00]
    static let formatVersion: UInt32 = 1
    static let certificatesSection: UInt8 = 1
    static let serialListSection: UInt8 = 0x20

    /// Counts up with each list written, so a server can tell a newer list from an older one.
    public var version: UInt64
    /// Seconds since the epoch.
    public var generated: UInt64
    public var comment: String
    /// Revoked serials, by the public key blob of the CA that issued them.
    public var serials: [(caKey: [UInt8], serials: [UInt64])]

    public init(version: UInt64, generated: UInt64, comment: String, serials: [(caKey: [UInt8], serials: [UInt64])]) {
        self.version = version
        self.generated = generated
        self.comment = comment
        self.serials = serials
    }

    /// The file's bytes.
    public var bytes: [UInt8] {
        var out = Self.magic + SSHWire.uint32(Self.formatVersion)
        out += SSHCertificate.uint64(version) + SSHCertificate.uint64(generated) + SSHCertificate.uint64(0)
        out += SSHWire.string([UInt8]()) + SSHWire.string(comment)
        for (caKey, list) in serials where !list.isEmpty {
            let serialBytes = Array(Set(list)).sorted().flatMap { SSHCertificate.uint64($0) }
            let section =
                SSHWire.string(caKey) + SSHWire.string([UInt8]()) + [Self.serialListSection]
                + SSHWire.string(serialBytes)
            out += [Self.certificatesSection] + SSHWire.string(section)
        }
        return out
    }
}
