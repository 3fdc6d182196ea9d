// UnattendedConnect: how the supervisor logs in with nobody at the keyboard — no questions (an unknown or
// changed host key is refused; the key must be pinned first), and credentials only from vault classes that
// unattended reads can open. A credential stored `whenUnlocked…` is reported with the fix, never skipped silently.
import Foundation
import ShelfCore
import ShelfSSH
import ShelfVault

final class UnattendedPrompts: ConnectDelegate {
    func decide(_ question: HostKeyQuestion) -> HostKeyDecision { .refuse }
    func askPassword(_ request: PasswordRequest) -> PasswordAnswer? { nil }
    func answer(_ challenge: KeyboardChallenge) -> [ShelfSSH.SecretBytes]? { nil }
}

final class UnattendedCredentials: CredentialSource {
    private let context: AppContext
    private let vaultSource: VaultCredentialSource
    private let hostName: String
    /// The last credential refused for its class: the connect flow falls back to asking (nobody answers here),
    /// so the supervisor reports this reason instead of "no password given".
    private(set) var refusal: String?

    init(context: AppContext, hostName: String, endpoints: [SSHEndpoint]) {
        self.context = context
        self.hostName = hostName
        vaultSource = VaultCredentialSource(context: context, purpose: ReleasePurpose(by: "forward", endpoints: endpoints),
                                            askPassphrase: nil)
    }

    func reset() { refusal = nil }

    func privateKey(for reference: ReferenceKey) -> ShelfSSH.CredentialLookup {
        check(reference) ?? vaultSource.privateKey(for: reference)
    }
    func keyPassphrase(for reference: ReferenceKey) -> ShelfSSH.CredentialLookup {
        check(reference) ?? vaultSource.keyPassphrase(for: reference)
    }
    func password(for reference: ReferenceKey) -> ShelfSSH.CredentialLookup {
        check(reference) ?? vaultSource.password(for: reference)
    }

    func rememberPassword(_ password: ShelfSSH.SecretBytes, forHost hostID: UUID) -> ReferenceKey? { nil }
    var canRemember: Bool { false }

    /// An item whose class unlocks only in the process that typed the passphrase cannot serve a supervisor.
    private func check(_ reference: ReferenceKey) -> ShelfSSH.CredentialLookup? {
        guard
            let vault = try? Vault.open(
                context.locations, options: VaultCommands.options(context), createIfMissing: false),
            let info = try? vault.items().first(where: { $0.key == reference.rawValue }),
            let stored = info.knownClass, stored.unlockScope == .thisProcess
        else { return nil }
        let reason = Self.fix(reference: reference, stored: stored, hostName: hostName)
        refusal = reason
        return .unavailable(reason: reason)
    }

    static func fix(reference: ReferenceKey, stored: AccessibilityClass, hostName: String) -> String {
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
