// AgentProtocol: the ssh-agent protocol as OpenSSH speaks it (draft-miller-ssh-agent, OpenSSH's PROTOCOL.agent)
// — message numbers, the named limits, decoding a request and encoding the replies. Pure: no IO, no C. Secret
// fields (a private key being added, a lock passphrase) are never copied: they come back as offsets into the
// caller's buffer, which is guarded memory the vault module reads them from.

/// Message numbers (OpenSSH's authfd.h).
public enum AgentMessage {
    public static let failure: UInt8 = 5
    public static let success: UInt8 = 6
    public static let requestIdentities: UInt8 = 11
    public static let identitiesAnswer: UInt8 = 12
    public static let signRequest: UInt8 = 13
    public static let signResponse: UInt8 = 14
    public static let addIdentity: UInt8 = 17
    public static let removeIdentity: UInt8 = 18
    public static let removeAllIdentities: UInt8 = 19
    public static let addSmartcardKey: UInt8 = 20
    public static let removeSmartcardKey: UInt8 = 21
    public static let lock: UInt8 = 22
    public static let unlock: UInt8 = 23
    public static let addIdentityConstrained: UInt8 = 25
    public static let addSmartcardKeyConstrained: UInt8 = 26
    public static let `extension`: UInt8 = 27
    public static let extensionFailure: UInt8 = 28

    public static let constrainLifetime: UInt8 = 1
    public static let constrainConfirm: UInt8 = 2
    public static let constrainExtension: UInt8 = 255

    /// Sign-request flags: which RSA signature algorithm the client wants (none means SHA-1 `ssh-rsa`).
    public static let rsaSHA2_256: UInt32 = 0x02
    public static let rsaSHA2_512: UInt32 = 0x04
}

/// Every size the parser accepts has a name; a message over `message` closes the connection unread.
public enum AgentLimits {
    /// OpenSSH's AGENT_MAX_LEN: the largest message either side sends.
    public static let message = 256 * 1024
    /// A public key blob (an RSA-16384 key is about 2 KiB).
    public static let keyBlob = 16 * 1024
    /// Key type and extension names.
    public static let name = 256
    /// A key comment (ssh-add sends the file path).
    public static let comment = 4096
    /// One private key field (an RSA-16384 modulus is 2 KiB).
    public static let keyField = 8 * 1024
    /// Lock and unlock passphrases.
    public static let passphrase = 1024
    /// A session identifier in session-bind@openssh.com (OpenSSH's AGENT_MAX_SID_LEN).
    public static let sessionID = 128
}

/// session-bind@openssh.com (OpenSSH's PROTOCOL.agent): the ssh client binds its agent connection to the session it
/// has with a server — the server's host key, the session identifier, and the server's signature over it.
public struct AgentSessionBind: Sendable, Equatable {
    public var hostKey: [UInt8]
    public var sessionID: [UInt8]
    public var signature: [UInt8]
    /// The connection is used for agent forwarding, not for this user's authentication.
    public var forwarding: Bool

    public static let extensionName = "session-bind@openssh.com"

    public init(hostKey: [UInt8], sessionID: [UInt8], signature: [UInt8], forwarding: Bool) {
        self.hostKey = hostKey
        self.sessionID = sessionID
        self.signature = signature
        self.forwarding = forwarding
    }

    /// Decodes the extension's contents; nil for anything malformed or over its limits.
    public static func decode(_ contents: UnsafeRawBufferPointer) -> AgentSessionBind? {
        var reader = SSHWireReader(contents)
        guard let hostKey = reader.bytesString(limit: AgentLimits.keyBlob),
            let sessionID = reader.bytesString(limit: AgentLimits.sessionID),
            let signature = reader.bytesString(limit: AgentLimits.keyBlob), let forwarding = reader.bool(),
            reader.isAtEnd
        else { return nil }
        return AgentSessionBind(hostKey: hostKey, sessionID: sessionID, signature: signature, forwarding: forwarding)
    }

    /// Whether `data` (a sign request's) is a user-authentication request of this session: OpenSSH puts the
    /// session identifier first.
    public func covers(_ data: [UInt8]) -> Bool { data.starts(with: SSHWire.string(sessionID)) }
}

/// A parsed ADD_IDENTITY / ADD_ID_CONSTRAINED request. `fields` locates the private key's type-specific fields
/// (the part after the type name, before the comment) in the message; only the vault module reads them.
public struct AgentAddRequest: Sendable, Equatable {
    public var keyType: String
    public var fields: Range<Int>
    public var comment: String
    /// Seconds the key may be used (`ssh-add -t`), when given.
    public var lifetime: UInt32?
    /// Every use must be confirmed (`ssh-add -c`).
    public var confirm: Bool
}

public enum AgentRequest: Sendable, Equatable {
    case requestIdentities
    case sign(keyBlob: [UInt8], data: [UInt8], flags: UInt32)
    case add(AgentAddRequest)
    case remove(keyBlob: [UInt8])
    case removeAll
    /// `ssh-add -x` / `-X`: the passphrase's place in the message (secret: read in place, never copied).
    case lock(passphrase: Range<Int>)
    case unlock(passphrase: Range<Int>)
    /// An extension request: its name, and where its own contents are in the message.
    case `extension`(name: String, contents: Range<Int>)
    /// PKCS#11 keys: this agent has none.
    case smartcard
    case unknown(UInt8)
}

public enum AgentParseError: Error, Sendable, Equatable, CustomStringConvertible {
    case empty
    /// A field runs past the end of the message, or is longer than its limit.
    case malformed(String)
    case trailingBytes(Int)
    case unsupportedKeyType(String)
    case unknownConstraint(UInt8)
    case constraintExtension(String)
    case repeatedConstraint(String)

    public var description: String {
        switch self {
        case .empty: "an empty message"
        case .malformed(let field): "a malformed or over-long \(field)"
        case .trailingBytes(let count): "\(count) unexpected bytes after the request"
        case .unsupportedKeyType(let type): "a key of type '\(type)' (this agent holds ed25519, ECDSA and RSA keys)"
        case .unknownConstraint(let code): "an unknown key constraint (\(code))"
        case .constraintExtension(let name): "an unsupported constraint extension '\(name)'"
        case .repeatedConstraint(let name): "the \(name) constraint given twice"
        }
    }
}

public enum AgentProtocol {
    /// How many wire fields follow the type name in a private key of each type (OpenSSH's
    /// sshkey_private_serialize): ed25519 public + private; ECDSA curve, point, scalar; RSA n e d iqmp p q.
    public static func privateFieldCount(keyType: String) -> Int? {
        switch keyType {
        case "ssh-ed25519": 2
        case "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521": 3
        case "ssh-rsa": 6
        default: nil
        }
    }

    /// Decodes one message body (the bytes after the 4-byte length).
    public static func decode(_ message: UnsafeRawBufferPointer) -> Result<AgentRequest, AgentParseError> {
        var reader = SSHWireReader(message)
        guard let type = reader.byte() else { return .failure(.empty) }
        let request: AgentRequest
        switch type {
        case AgentMessage.requestIdentities:
            request = .requestIdentities
        case AgentMessage.signRequest:
            guard let blob = reader.bytesString(limit: AgentLimits.keyBlob) else {
                return .failure(.malformed("key blob"))
            }
            guard let data = reader.bytesString(limit: AgentLimits.message) else {
                return .failure(.malformed("data to sign"))
            }
            guard let flags = reader.uint32() else { return .failure(.malformed("flags")) }
            request = .sign(keyBlob: blob, data: data, flags: flags)
        case AgentMessage.addIdentity, AgentMessage.addIdentityConstrained:
            // Plain ADD_IDENTITY carries no constraints, but OpenSSH's agent reads them for both, and so does this.
            switch decodeAdd(&reader) {
            case .success(let add): request = .add(add)
            case .failure(let error): return .failure(error)
            }
        case AgentMessage.removeIdentity:
            guard let blob = reader.bytesString(limit: AgentLimits.keyBlob) else {
                return .failure(.malformed("key blob"))
            }
            request = .remove(keyBlob: blob)
        case AgentMessage.removeAllIdentities:
            request = .removeAll
        case AgentMessage.lock, AgentMessage.unlock:
            guard let range = reader.stringRange(limit: AgentLimits.passphrase) else {
                return .failure(.malformed("passphrase"))
            }
            request = type == AgentMessage.lock ? .lock(passphrase: range) : .unlock(passphrase: range)
        case AgentMessage.extension:
            guard let name = reader.text(limit: AgentLimits.name) else { return .failure(.malformed("extension name")) }
            // Each extension defines its own contents (decoded by whoever knows the extension): not "trailing".
            return .success(.extension(name: name, contents: reader.offset..<message.count))
        case AgentMessage.addSmartcardKey, AgentMessage.addSmartcardKeyConstrained, AgentMessage.removeSmartcardKey:
            return .success(.smartcard)
        default:
            return .success(.unknown(type))
        }
        guard reader.isAtEnd else { return .failure(.trailingBytes(reader.remaining)) }
        return .success(request)
    }

    private static func decodeAdd(_ reader: inout SSHWireReader) -> Result<AgentAddRequest, AgentParseError> {
        guard let keyType = reader.text(limit: AgentLimits.name) else { return .failure(.malformed("key type")) }
        guard let count = privateFieldCount(keyType: keyType) else { return .failure(.unsupportedKeyType(keyType)) }
        let start = reader.offset
        for _ in 0..<count {
            guard reader.string(limit: AgentLimits.keyField) != nil else {
                return .failure(.malformed("private key field"))
            }
        }
        let fields = start..<reader.offset
        guard let comment = reader.text(limit: AgentLimits.comment) else { return .failure(.malformed("comment")) }
        var add = AgentAddRequest(keyType: keyType, fields: fields, comment: comment, lifetime: nil, confirm: false)
        while !reader.isAtEnd {
            guard let code = reader.byte() else { return .failure(.malformed("constraint")) }
            switch code {
            case AgentMessage.constrainLifetime:
                guard add.lifetime == nil else { return .failure(.repeatedConstraint("lifetime")) }
                guard let seconds = reader.uint32() else { return .failure(.malformed("lifetime")) }
                add.lifetime = seconds
            case AgentMessage.constrainConfirm:
                guard !add.confirm else { return .failure(.repeatedConstraint("confirm")) }
                add.confirm = true
            case AgentMessage.constrainExtension:
                // The extension's data has no length of its own, so nothing after it could be read: refuse.
                let name = reader.text(limit: AgentLimits.name) ?? "(unreadable)"
                return .failure(.constraintExtension(name))
            default:
                return .failure(.unknownConstraint(code))
            }
        }
        return .success(add)
    }

    // MARK: replies (message bodies; `frame` adds the length)

    public static func frame(_ body: [UInt8]) -> [UInt8] { SSHWire.uint32(UInt32(body.count)) + body }

    public static func status(_ success: Bool) -> [UInt8] { [success ? AgentMessage.success : AgentMessage.failure] }

    /// The answer to an extension that is known but failed (OpenSSH's agent tells it from "unknown").
    public static func extensionStatus(_ success: Bool) -> [UInt8] {
        [success ? AgentMessage.success : AgentMessage.extensionFailure]
    }

    public static func identitiesAnswer(_ keys: [(blob: [UInt8], comment: String)]) -> [UInt8] {
        var body = [AgentMessage.identitiesAnswer] + SSHWire.uint32(UInt32(keys.count))
        for key in keys { body += SSHWire.string(key.blob) + SSHWire.string(key.comment) }
        return body
    }

    public static func signResponse(_ signature: [UInt8]) -> [UInt8] {
        [AgentMessage.signResponse] + SSHWire.string(signature)
    }
}

/// Reading one framed message through a `read` that may return any number of bytes (a socket, or a test that
/// drips one byte at a time). The body goes into storage the caller provides once the length is known.
public enum AgentFraming {
    public enum Outcome: Equatable, Sendable {
        case message(length: Int)
        /// The peer closed the connection between messages.
        case closed
        /// The peer closed (or the read failed) in the middle of a message.
        case truncated
        /// The announced length is over `AgentLimits.message` (or zero): the connection is closed unread.
        case refused(length: UInt32)
    }

    /// `read` fills part of the buffer it is given and returns how many bytes it wrote, 0 at end of input, or a
    /// negative number on error. `storage` is asked once for a buffer of the announced length.
    public static func next(
        read: (UnsafeMutableRawBufferPointer) -> Int,
        storage: (Int) -> UnsafeMutableRawBufferPointer
    ) -> Outcome {
        var header = [UInt8](repeating: 0, count: 4)
        let got = header.withUnsafeMutableBytes { fill($0, read: read) }
        if got == 0 { return .closed }
        if got < 4 { return .truncated }
        let length = header.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard length > 0, length <= UInt32(AgentLimits.message) else { return .refused(length: length) }
        let body = storage(Int(length))
        return fill(body, read: read) == Int(length) ? .message(length: Int(length)) : .truncated
    }

    /// Reads until `buffer` is full or the input ends; returns how many bytes arrived.
    private static func fill(
        _ buffer: UnsafeMutableRawBufferPointer, read: (UnsafeMutableRawBufferPointer) -> Int
    ) -> Int {
        var filled = 0
        while filled < buffer.count {
            let count = read(UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            if count <= 0 { return filled }
            filled += min(count, buffer.count - filled)
        }
        return filled
    }
}
