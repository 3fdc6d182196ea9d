// SyncRun: one sync run as the CLI and the TUI both start it — with the vault the caller opened (and unlocked), or
// else the vault opened now without asking anything (made if there is none: sync keeps this device's keys in it).
// A vault that cannot open is the run's fallback reason, never a crash.
import FoundationEssentials
import ShelfCore
import ShelfStore
import ShelfSync
import ShelfVault

public enum SyncRun {
    /// `asked`: when a background caller wanted the run; a run another process started since answers it (SyncRunner).
    public static func run(
        _ workspace: Workspace, store: Store, vault: Vault? = nil, revoke: UUID? = nil,
        asked: Date? = nil
    ) -> SyncReport {
        let opened: Result<Vault, VaultError>
        if let vault {
            opened = .success(vault)
        } else {
            do { opened = .success(try VaultAccess.open(workspace, create: true)) } catch { opened = .failure(error) }
        }
        return SyncRunner.run(
            store: store, locations: workspace.locations, deviceName: Device.name(), vault: opened, revoke: revoke,
            asked: asked)
    }
}
