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
