// CatalogLoader: reads one consistent snapshot of the store and prepares it for the UI (runs off the input
// path, on the executor's queue).
import Foundation
import ShelfCore
import ShelfOperations
import ShelfStore
import ShelfUI
import ShelfVault

enum CatalogLoader {
    static func load(_ store: Store, secretsPresent: Set<String>? = nil) throws -> Catalog {
        try store.read { store in
            Catalog(hosts: try store.hosts(), groups: try store.groups(), identities: try store.identities(),
                    rules: try store.forwardRules(), secretsPresent: secretsPresent)
        }
    }
}

/// The reference keys this device's vault holds (names only, from the item list: no secret is read), so the
/// details pane can say "not synced to this device". The vault is opened once and kept for later loads, with
/// warnings kept off the curses screen.
final class VaultNames: @unchecked Sendable {
    private let context: AppContext
    private let lock = NSLock()
    private var vault: Vault?

    init(context: AppContext) { self.context = context }

    /// Empty without a vault; nil when the vault cannot be read (then the pane does not guess).
    func current() -> Set<String>? {
        lock.lock()
        defer { lock.unlock() }
        guard Vault.exists(at: context.locations) else { return [] }
        if vault == nil {
            vault = try? VaultAccess.open(VaultNames.quiet(context), create: false)
        }
        guard let items = try? vault?.items() else { return nil }
        return Set(items.map(\.key))
    }

    /// The workspace for code running under curses: a warning must not be written over the screen.
    static func quiet(_ context: AppContext) -> Workspace { context.workspace.warning(to: { _ in }) }
}
