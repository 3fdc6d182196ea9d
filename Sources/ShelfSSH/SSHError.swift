// SSHError: every failure of a connection as one typed value: what kind, a sentence for the user, libssh2's
// own diagnostic (when it said something) and a hint where the user can act.
import Foundation

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

    public init(_ kind: Kind, _ message: String, library: String? = nil, hint: String? = nil) {
        self.kind = kind
        self.message = message
        self.libraryMessage = library.flatMap { $0.isEmpty ? nil : $0 }
        self.hint = hint
    }

    public var description: String {
        guard let libraryMessage else { return message }
        return "\(message) (libssh2: \(libraryMessage))"
    }
}
