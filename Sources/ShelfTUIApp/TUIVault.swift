// TUIVault: the one vault the TUI process uses. Opened once there is one (and again when one appears: a
// "remember" creates it). Unlocking here (`V`, any passphrase dialog) unlocks the vault session for every sshelf
// process, and an unlock or lock elsewhere shows here within a second. Also its state for the status line (with the
// time left before the idle timeout), the item names for the details pane (never a value), unlocking with three
// tries, and locking.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfServices
import ShelfUI
import ShelfVault

final class TUIVault: @unchecked Sendable {
    /// Tries of the passphrase before a connect or an unlock gives up: the rule `vault unlock` follows too.
    static let passphraseTries = PassphraseTries.count

    enum UnlockOutcome: Equatable {
        case unlocked
        /// The user left the dialog.
        case cancelled
        /// Wrong `passphraseTries` times.
        case wrongPassphrase
        case failed(String)
    }

    let context: AppContext
    private let lock = Lock()
    private var vault: Vault?

    init(context: AppContext) { self.context = context }

    /// The workspace for code running under curses: a warning must not be written over the screen.
    static func quiet(_ context: AppContext) -> Workspace { context.workspace.warning(to: { _ in }) }

    /// How long whenUnlocked keys stay unlocked without use (`SSHELF_VAULT_IDLE_SECONDS`, 15 min by default).
    var idleTimeout: Duration { VaultAccess.options(context.workspace).idleTimeout }

    /// The vault, opened on first use; nil when this device has none. A vault that cannot be opened is tried again
    /// on the next call (it may be repaired meanwhile).
    func opened() -> Result<Vault, VaultError>? {
        lock.lock()
        defer { lock.unlock() }
        if let vault { return .success(vault) }
        guard Vault.exists(at: context.locations) else { return nil }
        do {
            let opened = try VaultAccess.open(Self.quiet(context), create: false)
            vault = opened
            return .success(opened)
        } catch {
            return .failure(error)
        }
    }

    /// Keeps `made` as this process's vault (V created it).
    func adopt(_ made: Vault) {
        lock.lock()
        defer { lock.unlock() }
        vault = made
    }

    /// Whether this device has a vault at all.
    var exists: Bool { Vault.exists(at: context.locations) }

    /// The vault if it opens (for the connect flow and sync, which report their own errors).
    var current: Vault? { if case .success(let vault) = opened() { vault } else { nil } }

    /// What the status line says: the session's time left while it is unlocked; otherwise "unlocked" counts the
    /// classes that hold items (all of them when none does), so a vault whose items are all afterFirstUnlock is
    /// unlocked after the session's idle timeout too.
    func indicator() -> VaultIndicator {
        guard let result = opened() else { return .notSetUp }
        let status: VaultStatus
        do {
            status = try result.get().status()
        } catch {
            return .broken(error.message)
        }
        if status.classes.contains(where: { $0.state == "damaged" }) {
            return .broken("a class key failed its integrity check")
        }
        guard status.hasPassphrase else { return .noPassphrase }
        if status.session.state == .unlocked, let left = status.session.secondsLeft {
            return .unlockedFor(minutes: max(1, (left + 59) / 60))
        }
        let usable = status.classes.filter { $0.state == "readable" || $0.state == "locked" }
        let holding = usable.filter { $0.items > 0 }
        let counted = holding.isEmpty ? usable : holding
        let locked = counted.filter { $0.state == "locked" }.count
        if locked == 0 { return .unlocked }
        return locked == counted.count ? .locked : .partlyUnlocked
    }

    /// The error and hint of a vault that exists but cannot be opened, else nil.
    func failure() -> (message: String, hint: String?)? {
        guard case .failure(let error) = opened() else { return nil }
        return (error.message, error.hint)
    }

    /// Reference keys of the items this device holds (names only), for "not synced to this device"; empty
    /// without a vault, nil when it cannot be read (then the pane does not guess).
    func itemNames() -> Set<String>? {
        guard let result = opened() else { return [] }
        guard case .success(let vault) = result, let items = try? vault.items() else { return nil }
        return Set(items.map(\.key))
    }

    /// Whether the item under `reference` is stored in a class the vault session cannot open right now.
    func isLocked(_ reference: ReferenceKey) -> Bool {
        guard let vault = current, let items = try? vault.items(),
            let stored = items.first(where: { $0.key == reference.rawValue })?.accessibility,
            let status = try? vault.status()
        else { return false }
        return status.classes.contains { $0.accessibility == stored && $0.state == "locked" }
    }

    /// Ends the session when it went unused for the idle timeout (for every process: the keyring's keys go).
    func relockIfIdle() { current?.relockIfIdle() }

    /// Locks the vault session for every sshelf process, as `sshelf vault lock` does.
    func lockAll() { current?.lock() }

    /// Asks for the passphrase (through `ask`, which gets the question and returns nil when the user leaves) and
    /// unlocks by `PassphraseTries`' rule: a wrong one is said so and asked again after the back-off, three times in
    /// all. `question` names what is asked, without a colon ("Vault passphrase"). Runs on a background thread: the
    /// back-off waits there, never in the run loop.
    func unlock(ask: (String) -> SecretBytes?, question: String = "Vault passphrase") -> UnlockOutcome {
        guard let vault = current else { return .failed("the vault cannot be opened") }
        switch PassphraseTries.unlock(vault, question: question, ask: ask) {
        case .unlocked: return .unlocked
        case .cancelled: return .cancelled
        case .wrongPassphrase: return .wrongPassphrase
        case .failed(let error): return .failed(error.message)
        }
    }
}

extension TUIVault {
    /// Moves `keys` to `target` after the autostart question's "y": a locked session is unlocked first (the dialog,
    /// three tries; leaving it moves nothing), then each item moves as `vault set-class` moves it. The outcome for
    /// the title bar.
    func move(_ keys: [ReferenceKey], to target: String, ask: (String) -> SecretBytes?) -> Notice {
        guard let target = AccessibilityClass(rawValue: target), let opened = current,
            let items = try? opened.items()
        else { return Notice("nothing moved: the vault cannot be opened", isError: true) }
        let classes = Set(items.filter { item in keys.contains { $0.rawValue == item.key } }.compactMap(\.knownClass))
        if !classes.union([target]).allSatisfy(opened.canRead) {
            switch unlock(ask: ask, question: "To move \(keys.count == 1 ? "it" : "them"), the vault passphrase") {
            case .unlocked: break
            case .cancelled: return Notice("nothing moved")
            case .wrongPassphrase:
                return Notice("nothing moved: the passphrase was wrong \(Self.passphraseTries) times", isError: true)
            case .failed(let message): return Notice("nothing moved: \(Display.safe(message))", isError: true)
            }
        }
        var moved = 0
        for key in keys {
            do {
                _ = try CredentialOperations.setClass(
                    key, to: target, in: opened, workspace: Self.quiet(context), store: nil,
                    vaultPassphrase: { throw ShelfError(.failure, "the vault session locked while moving") })
                moved += 1
            } catch {
                let failure = ShelfError(from: error)
                return Notice("moved \(moved) of \(keys.count): \(Display.safe(failure.message))", isError: true)
            }
        }
        return Notice(
            "moved \(moved == 1 ? "it" : "them") to \(target): 'sshelf forward up' reads "
                + "\(moved == 1 ? "it" : "them") after one 'sshelf vault unlock' per login")
    }
}
