// VaultError: what a vault operation that changes something reports. Reads never throw (see CredentialLookup).

public struct VaultError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable {
        /// No vault on this device yet (`sshelf vault init`).
        case notInitialized
        /// The vault or device key cannot be used as it is: missing device key, damaged file, newer format.
        case unavailable
        /// A file or folder is readable by group or others, or belongs to someone else.
        case permissions
        /// The class key needed is locked: enter the vault passphrase first.
        case locked
        /// The passphrase did not open the vault. Deliberately says nothing more.
        case wrongPassphrase
        /// The call named a class the vault never writes (`always…`), or one that needs a passphrase.
        case refusedClass
        /// Another process holds the vault longer than the busy timeout.
        case busy
        /// Bad input: an unreadable export file, an empty secret, a malformed key file.
        case invalid
    }

    public var kind: Kind
    public var message: String
    public var hint: String?

    public init(_ kind: Kind, _ message: String, hint: String? = nil) {
        self.kind = kind
        self.message = message
        self.hint = hint
    }

    public var description: String { message }

    static let wrongPassphrase = VaultError(.wrongPassphrase, "the vault passphrase is not correct")

    static func database(_ error: DatabaseError, _ context: String) -> VaultError {
        if error.isBusy {
            return VaultError(
                .busy, "\(context): the vault is locked by another sshelf process",
                hint: "try again when the other process has finished")
        }
        if error.isCorrupt {
            return VaultError(
                .unavailable, "\(context): the vault file is damaged (\(error.message))",
                hint: "sshelf will not overwrite it; restore a backup or move it aside")
        }
        return VaultError(.unavailable, "\(context): \(error.message)")
    }
}
