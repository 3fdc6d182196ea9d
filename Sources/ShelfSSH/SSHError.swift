// SSHError: every failure of a connection as one typed value: what kind, a sentence for the user, libssh2's
// own diagnostic (when it said something) and a hint where the user can act.
import FoundationEssentials
import ShelfCore

public struct SSHError: Error, Sendable, CustomStringConvertible, Equatable {
    public enum Kind: String, Sendable {
        case resolveFailed, connectionRefused, timedOut, unreachable, network
        case handshakeFailed
        /// The key is not known and the policy refused it (or the user said no).
        case hostKeyUnknown
        /// A different key of a known type: possible man-in-the-middle. Nothing was sent.
        case hostKeyChanged
        /// Known only under another key type, and the confirmation was refused.
        case hostKeyOtherType
        case hostKeyRevoked
        /// A reference key is set but this device's vault holds no such item.
        case credentialNotSynced
        /// The credential store could not answer (locked, broken) and there was no other way to ask.
        case credentialUnavailable
        case authenticationFailed
        /// An RSA user key, which libssh2 1.10 can only sign with SHA-1 `ssh-rsa` (refused by OpenSSH >= 8.8).
        case rsaSignatureUnsupported
        /// The user cancelled a prompt.
        case cancelled
        case channelFailed
        case disconnected
        case invalidConfiguration
    }

    public var kind: Kind
    public var message: String
    public var libraryMessage: String?
    public var hint: String?
    /// The hint as data (Hint), when the one who knew what fixes it said so part by part: each face words it (the CLI
    /// its --passphrase-fd, the TUI its V key); `hint` is then its face-neutral words.
    public var guidance: Hint?
    /// For `.hostKeyChanged`: the keys involved, so a caller can show them and, on the user's deliberate word,
    /// replace the pin (the connection itself has ended; nothing was sent).
    public var hostKeyChange: HostKeyChange?
    /// For a `.handshakeFailed` behind a jump host: the hop and the key exchanges its server offered (read from its
    /// first packet as it passed through the jump channel) when every one of them is post-quantum — which libssh2 has
    /// none of. Nil for any other failure.
    public var postQuantumOnly: PostQuantumOffer?

    public init(_ kind: Kind, _ message: String, library: String? = nil, hint: String? = nil) {
        self.kind = kind
        self.message = message
        self.libraryMessage = library.flatMap { $0.isEmpty ? nil : $0 }
        self.hint = hint
    }

    public init(_ kind: Kind, _ message: String, library: String? = nil, guidance: Hint?) {
        self.init(kind, message, library: library, hint: guidance?.words)
        self.guidance = guidance
    }

    public var description: String {
        guard let libraryMessage else { return message }
        return "\(message) (libssh2: \(libraryMessage))"
    }
}

/// A server that offers only post-quantum key exchanges: the hop's name and what it offered.
public struct PostQuantumOffer: Sendable, Equatable {
    public var hopName: String
    public var offered: [String]

    public init(hopName: String, offered: [String]) {
        self.hopName = hopName
        self.offered = offered
    }

    /// The offer when every key exchange in it is post-quantum (the protocol's `ext-info-` and `kex-strict-`
    /// markers aside) and there is one; nil otherwise.
    public static func only(_ offered: [String], hop: String) -> PostQuantumOffer? {
        guard offered.contains(where: KeyExchange.isPostQuantum),
            offered.allSatisfy({
                KeyExchange.isPostQuantum($0) || $0.hasPrefix("ext-info-") || $0.hasPrefix("kex-strict-")
            })
        else { return nil }
        return PostQuantumOffer(hopName: hop, offered: offered.filter(KeyExchange.isPostQuantum))
    }
}

/// A host key that differs from the one known for the hop: what was offered, what is known and where from.
public struct HostKeyChange: Sendable, Equatable {
    public var hopName: String
    /// `host` or `[host]:port`, as known_hosts names it.
    public var lookupName: String
    public var hostname: String
    public var port: Int
    /// The hop's host record (nil for an address with no record).
    public var hostID: UUID?
    public var offered: HostKey
    /// The keys of the same type known for it (empty: a pinned key that does not decode).
    public var known: [HostKey]
    public var source: HostKeySource

    public init(
        hopName: String, lookupName: String, hostname: String, port: Int, hostID: UUID?, offered: HostKey,
        known: [HostKey], source: HostKeySource
    ) {
        self.hopName = hopName
        self.lookupName = lookupName
        self.hostname = hostname
        self.port = port
        self.hostID = hostID
        self.offered = offered
        self.known = known
        self.source = source
    }
}
