// StatusSource: the status line's truth — the sync state from this device's settings and the last run's
// report, and the vault's state from the vault itself (never a guess; a broken vault says so and browsing
// goes on). Also the test-only hook SSHELF_TEST_SYNC_STATUS, documented in docs/TUI.md.
import Foundation
import ShelfCore
import ShelfOperations
import ShelfStore
import ShelfSync
import ShelfUI
import ShelfVault

enum StatusSource {
    /// TEST ONLY: `synced`, `synced:SECONDS-AGO`, `syncing`, `off` or `fallback:REASON` replaces the sync state.
    /// It changes only what the status line says, never what is stored or synced.
    static let testHookVariable = "SSHELF_TEST_SYNC_STATUS"

    /// `store` is the connection of the calling thread (SQLite connections here are single-threaded).
    static func current(context: AppContext, store: Store?, now: Date = Date()) -> StatusModel {
        var model = StatusModel(sync: syncIndicator(context, store), vault: vaultIndicator(context))
        if let hook = context.environment[testHookVariable], let sync = parseTestHook(hook, now: now) { model.sync = sync }
        return model
    }

    /// Off when this device has no sync settings; otherwise what the last run left (a fresh setup that never
    /// ran shows as syncing, since the TUI starts a run at once).
    static func syncIndicator(_ context: AppContext, _ store: Store?) -> SyncIndicator {
        guard let store, (try? SyncSettings.load(from: store)) != nil else {
            return .off
        }
        guard let report = SyncRunner.lastReport(context.locations) else { return .syncing }
        return SyncIndicator(report.status)
    }

    static func vaultIndicator(_ context: AppContext) -> VaultIndicator {
        guard Vault.exists(at: context.locations) else { return .notSetUp }
        do {
            let vault = try VaultAccess.open(VaultNames.quiet(context), create: false)
            let status = try vault.status()
            guard status.hasPassphrase else { return .noPassphrase }
            return status.classes.contains { $0.state == "locked" } ? .locked : .unlocked
        } catch {
            return .broken(error.message)
        }
    }

    static func parseTestHook(_ text: String, now: Date) -> SyncIndicator? {
        let (word, rest) = text.split(separator: ":", maxSplits: 1).map(String.init).splitFirst()
        switch word {
        case "off": return .off
        case "syncing": return .syncing
        case "synced": return .synced(at: now.addingTimeInterval(-(TimeInterval(rest ?? "") ?? 120)))
        case "fallback": return .localFallback(reason: rest ?? "unknown reason")
        default: return nil
        }
    }
}

extension SyncIndicator {
    /// The status line's view of the sync engine's state.
    init(_ status: SyncStatus) {
        switch status {
        case .off: self = .off
        case .syncing: self = .syncing
        case .synced(let at, _, _): self = .synced(at: at)
        case .localFallback(let reason): self = .localFallback(reason: reason)
        }
    }
}

extension Array where Element == String {
    fileprivate func splitFirst() -> (String, String?) { (first ?? "", count > 1 ? self[1] : nil) }
}
