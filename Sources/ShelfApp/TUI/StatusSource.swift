// StatusSource: the status line's truth. Until the vault and sync engines land this is "sync off" and
// "vault not set up"; the lead replaces `current` with their real state. Also the test-only hook
// SSHELF_TEST_SYNC_STATUS, which lets the end-to-end tests show the coloured states.
import Foundation
import ShelfSync
import ShelfUI

enum StatusSource {
    /// TEST ONLY: `synced`, `synced:SECONDS-AGO`, `syncing`, `off` or `fallback:REASON` replaces the sync state.
    /// Documented in docs/TUI.md; it changes only what the status line says, never what is stored or synced.
    static let testHookVariable = "SSHELF_TEST_SYNC_STATUS"

    static func current(environment: [String: String], now: Date = Date()) -> StatusModel {
        var model = StatusModel(sync: SyncIndicator(SyncStatus.off), vault: .notSetUp)
        if let hook = environment[testHookVariable], let sync = parseTestHook(hook, now: now) { model.sync = sync }
        return model
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
