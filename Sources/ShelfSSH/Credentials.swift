// Credentials: how the connect flow gets secrets. A CredentialSource (ShelfOperations answers from the vault) is asked
// by reference key, only for the method being tried, and every call carries the hop's VerifiedSession — a
// value only the host-key check can make — so no lookup can happen before that hop's key was verified.
import FoundationEssentials
import ShelfCore

/// What a credential lookup found. `notStored` with a reference set is the "not yet synced" case.
public enum CredentialLookup: Sendable {
    case found(SecretBytes)
    /// This device holds no item under the reference (the config track arrived before the credential track).
    case notStored
    /// The store cannot answer (broken, missing, or the item is locked in a way the source can explain); the flow
    /// falls back to asking the user. `hint` is what fixes it, as data each face words, when the source knows (it
    /// knows the item's class).
    case unavailable(reason: String, hint: Hint? = nil)
    /// The store needs its passphrase first; the flow falls back to asking the user.
    case locked
}

public protocol CredentialSource: AnyObject {
    func privateKey(for reference: ReferenceKey, on hop: VerifiedSession) -> CredentialLookup
    func keyPassphrase(for reference: ReferenceKey, on hop: VerifiedSession) -> CredentialLookup
    func password(for reference: ReferenceKey, on hop: VerifiedSession) -> CredentialLookup
    /// Whether `rememberPassword` can work now (offers "remember" in the prompt).
    var canRemember: Bool { get }
    /// Stores a password the user typed and asked to remember, after it logged in on `hop`; returns the
    /// reference the host record should now carry (the gated envelope is the vault's business), or nil when it
    /// could not.
    func rememberPassword(_ password: SecretBytes, forHost hostID: UUID, on hop: VerifiedSession) -> ReferenceKey?
    /// The same for a key file's passphrase (the identity's `identity.<uuid>.passphrase`).
    func rememberKeyPassphrase(_ passphrase: SecretBytes, identityID: UUID, on hop: VerifiedSession) -> ReferenceKey?
    /// What to do on this device when a referenced secret is not here ("not yet synced"); nil for the general advice.
    var notSyncedHint: String? { get }
}

extension CredentialSource {
    public var notSyncedHint: String? { nil }
    /// Stores a key file's passphrase the user typed and asked to remember, after it opened the key and logged in;
    /// returns the reference the identity should now carry, or nil.
    public func rememberKeyPassphrase(_ passphrase: SecretBytes, identityID: UUID, on hop: VerifiedSession)
        -> ReferenceKey?
    {
        nil
    }
}
