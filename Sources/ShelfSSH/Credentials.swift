// Credentials: how the connect flow asks for secrets. A CredentialSource (ShelfApp's answers from the vault)
// answers by reference key; it is consulted only after the hop's host key has been verified, and only for the method being tried.
import Foundation
import ShelfCore

/// What a credential lookup found. `notStored` with a reference set is the "not yet synced" case.
public enum CredentialLookup: Sendable {
    case found(SecretBytes)
    /// This device holds no item under the reference (the config track arrived before the credential track).
    case notStored
    /// The store cannot answer (broken, missing); the flow falls back to asking the user.
    case unavailable(reason: String)
    /// The store needs its passphrase first; the flow falls back to asking the user.
    case locked
}

public protocol CredentialSource: AnyObject {
    func privateKey(for reference: ReferenceKey) -> CredentialLookup
    func keyPassphrase(for reference: ReferenceKey) -> CredentialLookup
    func password(for reference: ReferenceKey) -> CredentialLookup
    /// Whether `rememberPassword` can work now (offers "remember" in the prompt).
    var canRemember: Bool { get }
    /// Stores a password the user typed and asked to remember, after it logged in; returns the reference the
    /// host record should now carry (the gated envelope is the vault's business), or nil when it could not.
    func rememberPassword(_ password: SecretBytes, forHost hostID: UUID) -> ReferenceKey?
}
