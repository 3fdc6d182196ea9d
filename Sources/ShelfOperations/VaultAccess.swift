// VaultAccess: opening the vault with the options this process runs with (switches from the environment,
// warnings to the workspace), and unlocking it only when a class the caller needs is locked.
import FoundationEssentials
import ShelfCore
import ShelfVault

public enum VaultAccess {
    public static func options(_ workspace: Workspace) -> VaultOptions {
        VaultOptions.from(environment: workspace.environment, warn: workspace.warn)
    }

    public static func open(_ workspace: Workspace, create: Bool) throws(VaultError) -> Vault {
        try Vault.open(workspace.locations, options: options(workspace), createIfMissing: create)
    }

    /// Asks for the passphrase (through `passphrase`) when any of `classes` is locked in this process.
    public static func unlockIfNeeded(
        _ vault: Vault, for classes: Set<AccessibilityClass>,
        passphrase: () throws -> SecretBytes
    ) throws {
        let status = try vault.status()
        let names = Set(classes.map(\.rawValue))
        guard status.classes.contains(where: { names.contains($0.accessibility) && $0.state == "locked" }) else {
            return
        }
        try vault.unlock(passphrase: try passphrase())
    }
}
