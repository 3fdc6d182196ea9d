// InviteCode: the one-time code `sshelf sync invite` shows and `sshelf sync join` reads — a 160-bit random secret
// and a checksum in base32 groups (37 characters). Everything about the invite derives from the secret: the id
// that names its files on the remote, the key sealing the invite box, and the key sealing the joiner's claim.
// The remote never sees the secret, so it can neither open the box nor forge a claim.
import FoundationEssentials

public struct InviteCode: Sendable {
    public static let secretLength = 20
    static let checksumLength = 3
    public static var symbols: Int { SyncKey.symbols(forBytes: secretLength + checksumLength) }

    public let secret: SecretBytes

    public init(secret: SecretBytes) { self.secret = secret }

    /// A fresh invite.
    public static func generate() -> InviteCode { InviteCode(secret: SecretBytes(Sodium.randomBytes(secretLength))) }

    /// The code to show: base32 in groups of five.
    public var text: String {
        SyncKey.encode(
            SecretBytes.joined([
                secret, SecretBytes(SyncKey.checksum(secret, label: "sshelf-invite-code", length: Self.checksumLength)),
            ]))
    }

    public enum ParseError: Error, Equatable {
        /// A format-1 join code (58 characters): it belongs to an older sshelf.
        case formatOneJoinCode
        case wrongLength(Int)
        case badCharacter
        case checksum
    }

    /// Reads a typed code. Spaces, dashes and case do not matter; a mistyped code fails its checksum.
    public static func parse(_ text: String) -> Result<InviteCode, ParseError> {
        let symbols = SyncKey.symbols(of: text)
        if symbols.count == SyncKey.joinCodeSymbols { return .failure(.formatOneJoinCode) }
        guard symbols.count == Self.symbols else { return .failure(.wrongLength(symbols.count)) }
        guard let payload = SyncKey.decode(symbols, count: secretLength + checksumLength) else {
            return .failure(.badCharacter)
        }
        let secret = payload.prefix(secretLength)
        let given = payload.withUnsafeBytes { Array($0[secretLength...]) }
        guard given == SyncKey.checksum(secret, label: "sshelf-invite-code", length: checksumLength) else {
            return .failure(.checksum)
        }
        return .success(InviteCode(secret: secret))
    }

    private var master: SecretBytes {
        SecretBytes(SyncCrypto.keyedDigest(SecretBytes(Array("sshelf-invite-v2".utf8)), key: secret))
    }

    /// Names the invite's files on the remote; reveals nothing about the secret.
    public var id: UUID {
        let bytes = SyncCrypto.derive(master, context: "sshelfiv", id: 3, length: 16).withUnsafeBytes { Array($0) }
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }

    /// Seals the invite box (written by the inviting device).
    public var boxKey: SecretBytes { SyncCrypto.derive(master, context: "sshelfiv", id: 1) }

    /// Seals a claim (written by the joining device): only a holder of the code can make one the inviter opens.
    public var claimKey: SecretBytes { SyncCrypto.derive(master, context: "sshelfiv", id: 2) }
}
