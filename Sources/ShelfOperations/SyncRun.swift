// SyncRun: one sync run as the CLI and the TUI both start it — the config track always, the credential track
// when this device syncs credentials (with the vault the caller opened and unlocked, or else the vault opened
// now without asking anything; a vault that cannot open leaves that track out of this run).
import Foundation
import ShelfCore
import ShelfStore
import ShelfSync
import ShelfVault

public enum SyncRun {
    public static func run(_ workspace: Workspace, store: Store, vault: Vault? = nil) -> SyncReport {
        var credentials: CredentialSync?
        if (try? SyncSettings.credentialsEnabled(store)) == true,
           let vault = vault ?? (try? VaultAccess.open(workspace, create: false)) {
            credentials = CredentialSync(vault: vault)
        }
        return SyncRunner.run(store: store, locations: workspace.locations, deviceName: Device.name(), credentials: credentials)
    }
}
