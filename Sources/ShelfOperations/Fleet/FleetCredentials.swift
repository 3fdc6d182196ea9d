// FleetCredentials: the credential source of one fleet host — the unattended one (no questions, only classes a
// process with nobody typing may read) — with every lookup taken under one lock the whole run shares, because the
// hosts' threads share one vault, one store connection and the release log.
import FoundationEssentials
import ShelfCore
import ShelfSSH
import ShelfStore
import ShelfVault

public final class FleetCredentials: CredentialSource {
    private let inner: UnattendedCredentials
    private let lock: Lock

    /// `lock` is the run's; `vault` the one opened (and unlocked) at its start.
    public init(workspace: Workspace, store: Store, vault: Vault, releasedBy: String, who: String, lock: Lock) {
        inner = UnattendedCredentials(
            workspace: workspace, store: store, who: who, vault: vault, releasedBy: releasedBy)
        self.lock = lock
    }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    public func privateKey(for reference: ReferenceKey, on hop: VerifiedSession) -> ShelfSSH.CredentialLookup {
        locked { inner.privateKey(for: reference, on: hop) }
    }
    public func keyPassphrase(for reference: ReferenceKey, on hop: VerifiedSession) -> ShelfSSH.CredentialLookup {
        locked { inner.keyPassphrase(for: reference, on: hop) }
    }
    public func password(for reference: ReferenceKey, on hop: VerifiedSession) -> ShelfSSH.CredentialLookup {
        locked { inner.password(for: reference, on: hop) }
    }
    public var canRemember: Bool { false }
    public func rememberPassword(_ password: SecretBytes, forHost hostID: UUID, on hop: VerifiedSession)
        -> ReferenceKey?
    { nil }
}
