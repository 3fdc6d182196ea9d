// BackgroundSync: sync while the TUI runs — at start, every few minutes, and at once when sync is turned on
// or pointed elsewhere from another terminal (settings are checked every few seconds) — on its own thread
// with its own store connection, so start-up and browsing never wait on a slow remote. Each run posts the
// status (syncing, then synced or local fallback with its reason) and asks for a reload when it brought
// changes. The credential track runs when the vault opens without a passphrase prompt; otherwise its
// report says the vault is locked and the config track still syncs.
import Foundation
import ShelfCore
import ShelfOperations
import ShelfStore
import ShelfSync
import ShelfUI
import ShelfVault

final class BackgroundSync: @unchecked Sendable {
    static let interval: TimeInterval = 300
    static let settingsCheck: TimeInterval = 5
    private let context: AppContext
    private let mailbox: Mailbox
    private let reload: @Sendable () -> Void

    init(context: AppContext, mailbox: Mailbox, reload: @escaping @Sendable () -> Void) {
        self.context = context
        self.mailbox = mailbox
        self.reload = reload
    }

    func start() {
        let thread = Thread { [self] in loop() }
        thread.name = "sshelf-sync"
        thread.start()
    }

    private func loop() {
        guard let store = try? VaultNames.quiet(context).openStore() else { return }
        var lastSettings: SyncSettings?
        var lastRun = Date.distantPast
        while true {
            let settings = (try? SyncSettings.load(from: store)) ?? nil
            if settings != lastSettings {
                // Turned off elsewhere: say so at once. Turned on or moved: run now.
                if settings == nil { mailbox.post(.status(StatusSource.current(context: context, store: store))) }
                lastSettings = settings
                lastRun = .distantPast
            }
            if settings != nil, Date().timeIntervalSince(lastRun) >= Self.interval {
                runOnce(store)
                lastRun = Date()
            }
            Thread.sleep(forTimeInterval: Self.settingsCheck)
        }
    }

    private func runOnce(_ store: Store) {
        var status = StatusSource.current(context: context, store: store)
        status.sync = .syncing
        mailbox.post(.status(status))
        let report = SyncRun.run(VaultNames.quiet(context), store: store)
        mailbox.post(.status(StatusSource.current(context: context, store: store)))
        if report.pulled > 0 { reload() }
    }
}
