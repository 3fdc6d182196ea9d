// CatalogLoader: reads one consistent snapshot of the store and prepares it for the UI (runs off the input
// path, on the executor's queue).
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfServices
import ShelfStore
import ShelfUI
import ShelfVault

enum CatalogLoader {
    /// Rows the first screenful holds: more than any terminal shows.
    static let firstScreenful = 256

    /// The whole catalog; the host table comes from the catalog cache when it is current, else from the rows.
    static func load(_ store: Store, secretsPresent: Set<String>? = nil) throws -> Catalog {
        try store.read { store in
            var catalog = Catalog(
                table: try store.hostTable(), groups: try store.groups(),
                identities: try store.identities(), rules: try store.forwardRules(),
                secretsPresent: secretsPresent)
            catalog.optionDefaults = try store.optionDefaults()
            catalog.keyExchanges = try store.lastKeyExchanges()
            catalog.hostCertificates = try store.lastHostCertificates()
            catalog.snippets = try store.snippets()
            catalog.tmuxWindow = try store.setting(TmuxWindows.windowSetting) == "on"
            return catalog
        }
    }

    /// The whole catalog if the cache is current (a cheap check and a mapping), else nil.
    static func cached(_ store: Store, secretsPresent: @autoclosure () -> Set<String>?) throws -> Catalog? {
        try store.read { store in
            guard let table = try store.cachedHostTable() else { return nil }
            var catalog = Catalog(
                table: table, groups: try store.groups(), identities: try store.identities(),
                rules: try store.forwardRules(), secretsPresent: secretsPresent())
            catalog.optionDefaults = try store.optionDefaults()
            catalog.keyExchanges = try store.lastKeyExchanges()
            catalog.hostCertificates = try store.lastHostCertificates()
            catalog.snippets = try store.snippets()
            catalog.tmuxWindow = try store.setting(TmuxWindows.windowSetting) == "on"
            return catalog
        }
    }

    /// The first screenful in list order through the name index, with the store's host count, so rows are on
    /// screen while the whole catalog is rebuilt.
    static func first(_ store: Store) throws -> Catalog {
        try store.read { store in
            var catalog = Catalog(
                table: try store.firstHosts(limit: firstScreenful), groups: try store.groups(),
                identities: try store.identities(), rules: try store.forwardRules(),
                isComplete: false, totalCount: try store.hostCount())
            catalog.optionDefaults = try store.optionDefaults()
            catalog.keyExchanges = try store.lastKeyExchanges()
            catalog.hostCertificates = try store.lastHostCertificates()
            catalog.snippets = try store.snippets()
            catalog.tmuxWindow = try store.setting(TmuxWindows.windowSetting) == "on"
            return catalog
        }
    }
}
