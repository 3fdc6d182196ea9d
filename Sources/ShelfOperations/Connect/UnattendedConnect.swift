// UnattendedConnect: how sshelf logs in with nobody at the keyboard (the forward supervisor, a warm keeper) —
// no questions (an unknown or changed host key is refused; the key must be pinned first), and credentials only
// from vault classes that unattended reads can open. A credential stored `whenUnlocked…` is reported with the
// fix, never skipped silently.
import Foundation
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
    private let hostName: String
    /// The last credential refused for its class: the connect flow falls back to asking (nobody answers here),
    /// so the supervisor reports this reason instead of "no password given".
    public private(set) var refusal: String?

    public init(workspace: Workspace, store: Store, hostName: String) {
        self.hostName = hostName
        vaultSource = VaultCredentialSource(workspace: workspace, store: store, askPassphrase: nil)
    }

    public func reset() { refusal = nil }

    public func privateKey(for reference: ReferenceKey, on hop: VerifiedSession) -> ShelfSSH.CredentialLookup {
        check(reference) ?? vaultSource.privateKey(for: reference, on: hop)
    }
    public func keyPassphrase(for reference: ReferenceKey, on hop: VerifiedSession) -> ShelfSSH.CredentialLookup {
        check(reference) ?? vaultSource.keyPassphrase(for: reference, on: hop)
    }
    public func password(for reference: ReferenceKey, on hop: VerifiedSession) -> ShelfSSH.CredentialLookup {
        check(reference) ?? vaultSource.password(for: reference, on: hop)
    }

    public func rememberPassword(_ password: SecretBytes, forHost hostID: UUID, on hop: VerifiedSession) -> ReferenceKey? { nil }
    public var canRemember: Bool { false }

    /// An item whose class unlocks only in the process that typed the passphrase cannot serve a supervisor.
    private func check(_ reference: ReferenceKey) -> ShelfSSH.CredentialLookup? {
        guard case .success(let stored?) = vaultSource.storedClass(reference), stored.unlockScope == .thisProcess else { return nil }
        let reason = Self.fix(reference: reference, stored: stored, hostName: hostName)
        refusal = reason
        return .unavailable(reason: reason)
    }

    public static func fix(reference: ReferenceKey, stored: AccessibilityClass, hostName: String) -> String {
        let again =
            reference.rawValue.hasPrefix("identity")
            ? "import the key again (sshelf identity import NAME FILE)"
            : "store it again (sshelf vault set-password \(Display.safe(hostName)))"
        return
            "\(reference.rawValue) is stored \(stored.rawValue), which only a process you typed the passphrase into can read; "
            + "for autostart forwards \(again) so it gets the afterFirstUnlockThisDeviceOnly class, then 'sshelf vault unlock' once per login "
            + "('sshelf vault audit' lists every such item)"
    }
}
