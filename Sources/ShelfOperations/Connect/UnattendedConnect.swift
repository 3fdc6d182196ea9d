// UnattendedConnect: how sshelf logs in with nobody at the keyboard (the forward supervisor) — no questions (an
// unknown or changed host key is refused; the key must be pinned first), and credentials the vault session opens
// now. A credential the vault cannot open now is reported in the user's words with the fixes (`sshelf vault
// unlock`, `sshelf vault set-class`), never skipped silently. A vault unlocked at start with a passphrase handed over
// (--passphrase-fd) serves the afterFirstUnlock classes where the kernel keyring cannot keep an unlock.
import FoundationEssentials
import ShelfCore
import ShelfSSH
import ShelfStore
import ShelfVault

public final class UnattendedPrompts: ConnectDelegate {
    public init() {}
    public func decide(_ question: HostKeyQuestion) -> HostKeyDecision { .refuse }
    public func askPassword(_ request: PasswordRequest) -> PasswordAnswer? { nil }
    public func answer(_ challenge: KeyboardChallenge) -> [SecretBytes]? { nil }
}

public final class UnattendedCredentials: CredentialSource {
    private let vaultSource: VaultCredentialSource
    /// The last credential refused for its class: the connect flow falls back to asking (nobody answers here),
    /// so the supervisor reports this reason instead of "no password given" (its hint is data, for each face to word).
    public private(set) var refusal: ShelfError?

    /// `who` names the process in messages ("'sshelf forward up'"); `vault` is one opened and unlocked at start with
    /// a passphrase the user handed over (--passphrase-fd), shared by every host's runner.
    /// `releasedBy` names the releasing command in the release log (forward, exec).
    public init(
        workspace: Workspace, store: Store, who: String = "'sshelf forward up'", vault: Vault? = nil,
        releasedBy: String
    ) {
        self.who = who
        self.store = store
        vaultSource = VaultCredentialSource(
            workspace: workspace, store: store, vault: vault, releasedBy: releasedBy,
            askPassphrase: nil)
    }
    private let who: String
    private let store: Store

    /// The class of the credential last refused because the vault could not open it.
    private var refusedClass: AccessibilityClass?

    public func reset() {
        refusal = nil
        refusedClass = nil
    }

    /// Whether the vault session now opens the credential last refused (someone ran `sshelf vault unlock`).
    public var refusedCredentialOpens: Bool { refusedClass.map { vaultSource.canRead($0) == true } ?? false }

    public func privateKey(for reference: ReferenceKey, on hop: VerifiedSession) -> ShelfSSH.CredentialLookup {
        check(reference) ?? vaultSource.privateKey(for: reference, on: hop)
    }
    public func keyPassphrase(for reference: ReferenceKey, on hop: VerifiedSession) -> ShelfSSH.CredentialLookup {
        check(reference) ?? vaultSource.keyPassphrase(for: reference, on: hop)
    }
    public func password(for reference: ReferenceKey, on hop: VerifiedSession) -> ShelfSSH.CredentialLookup {
        check(reference) ?? vaultSource.password(for: reference, on: hop)
    }

    public func rememberPassword(_ password: SecretBytes, forHost hostID: UUID, on hop: VerifiedSession)
        -> ReferenceKey?
    { nil }
    public var canRemember: Bool { false }

    /// An item the vault cannot open now is explained for a process nobody can type into. The refusal follows the
    /// vault's real state, never the class's name: a vault without a passphrase, or an unlocked session, opens it.
    private func check(_ reference: ReferenceKey) -> ShelfSSH.CredentialLookup? {
        guard case .success(let stored?) = vaultSource.storedClass(reference), vaultSource.canRead(stored) == false
        else { return nil }
        let (reason, hint) = LockedCredential.explain(
            reference, stored: stored, situation: .unattended(who: who), keyringInUse: vaultSource.keyringInUse)
        refusal = ShelfError(.failure, "\(describe(reference)) cannot be read: \(reason)", guidance: hint)
        refusedClass = stored
        return .unavailable(reason: reason, hint: hint)
    }

    /// An item in the user's words: "the password of host 'web'", "the private key of identity 'deploy'".
    func describe(_ reference: ReferenceKey) -> String {
        let owner =
            reference.ownerID.flatMap { id -> String? in
                switch reference.owner {
                case .host: return (try? store.host(id: id))??.name
                case .identity: return (try? store.identities())?.first { $0.id == id }?.name
                case .sync, .log, .ca, .recordings: return nil
                }
            }.map { "'\(Display.safe($0))'" } ?? "(\(reference.rawValue))"
        switch (reference.owner, reference.secret) {
        case (.host, .remember): return "the remembered password of host \(owner)"
        case (.host, _): return "the password of host \(owner)"
        case (.identity, .passphrase): return "the key passphrase of identity \(owner)"
        case (.identity, _): return "the private key of identity \(owner)"
        case (.sync, _): return "the sync key"
        case (.log, _): return "the release log key"
        case (.ca, _): return "the key of a certificate authority \(owner)"
        case (.recordings, _): return "the recordings key"
        }
    }
}
