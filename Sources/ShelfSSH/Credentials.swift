// Credentials: how the connect flow asks for secrets. A CredentialSource (the vault, later) answers by reference
// key; it is consulted only after the hop's host key has been verified, and only for the method being tried.
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
    /// What to do on this device when a referenced secret is not here ("not yet synced"); nil for the general advice.
    var notSyncedHint: String? { get }
}

extension CredentialSource {
    public var notSyncedHint: String? { nil }
}

/// A source with nothing in it: every reference is `notStored`. What a device sees before the credential track
/// has synced.
public final class EmptyCredentialSource: CredentialSource {
    public init() {}
    public func privateKey(for reference: ReferenceKey) -> CredentialLookup { .notStored }
    public func keyPassphrase(for reference: ReferenceKey) -> CredentialLookup { .notStored }
    public func password(for reference: ReferenceKey) -> CredentialLookup { .notStored }
    public var canRemember: Bool { false }
    public func rememberPassword(_ password: SecretBytes, forHost hostID: UUID) -> ReferenceKey? { nil }
}

/// Stands in while no vault is wired: every lookup is `unavailable`, so the flow asks the user instead.
public final class NoVaultCredentialSource: CredentialSource {
    let reason: String
    public init(reason: String = "the vault is not available in this build") { self.reason = reason }
    public func privateKey(for reference: ReferenceKey) -> CredentialLookup { .unavailable(reason: reason) }
    public func keyPassphrase(for reference: ReferenceKey) -> CredentialLookup { .unavailable(reason: reason) }
    public func password(for reference: ReferenceKey) -> CredentialLookup { .unavailable(reason: reason) }
    public var canRemember: Bool { false }
    public func rememberPassword(_ password: SecretBytes, forHost hostID: UUID) -> ReferenceKey? { nil }
}
