// CatalogLoader: reads one consistent snapshot of the store and prepares it for the UI (runs off the input
// path, on the executor's queue).
import Foundation
import ShelfCore
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

    /// The reference keys this device's vault holds (names only, from the item list: no secret is read), so
    /// the details pane can say "not synced to this device". Empty without a vault; nil when the vault cannot
    /// be read (then the pane does not guess).
    static func secretsPresent(_ context: AppContext) -> Set<String>? {
        guard Vault.exists(at: context.locations) else { return [] }
        guard let vault = try? Vault.open(context.locations, options: VaultCommands.options(context), createIfMissing: false),
              let items = try? vault.items() else { return nil }
        return Set(items.map(\.key))
    }
}
