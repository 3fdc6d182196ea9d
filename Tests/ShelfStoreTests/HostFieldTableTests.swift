// HostFieldTableTests: a host's fields are declared once (HostFields), and nothing can drift from that list — every
// stored property of Host is in it, the schema's columns are its columns, every field but the id is in exactly one
// sync field group, and a host with every field set comes back whole through JSON, the store and the catalog.
import Foundation
import ShelfCore
@testable import ShelfStore
import TestSupport
import XCTest

final class HostFieldTableTests: XCTestCase {
    /// A host with no field at its default, so a field the JSON or the store drops shows as a difference.
    static func everyFieldSet() -> ShelfCore.Host {
        let other = UUID()
        return ShelfCore.Host(
            name: "web1", hostname: "10.0.0.1", port: 2222, user: "deploy", groupID: UUID(), tags: ["a", "b"],
            authMethod: .publickey, identityID: UUID(), passwordRef: ReferenceKey.hostPassword(UUID()),
            jumpHostIDs: [other], unresolvedJump: "bastion.example:22",
            pinnedHostKey: PinnedHostKey(type: "ssh-ed25519", key: "AAAAC3NzaC1lZDI1NTE5AAAAIA"),
            options: ["ServerAliveInterval 30"], notes: "line one\nline two",
            createdAt: Date(timeIntervalSince1970: 1_700_000_000.25),
            updatedAt: Date(timeIntervalSince1970: 1_700_000_100.5),
            lastConnectedAt: Date(timeIntervalSince1970: 1_700_000_200.75), aliases: ["w1", "web1.prod"],
            pq: .require, record: .ask, extra: ["future": .array([.number(1)])])
    }

    func testTheHostWithEveryFieldSetHasNoFieldAtItsDefault() throws {
        let blank = try JSONDecoder().decode(
            [String: JSONValue].self, from: try ShelfJSON.encoder().encode(ShelfCore.Host()))
        let full = try JSONDecoder().decode(
            [String: JSONValue].self, from: try ShelfJSON.encoder().encode(Self.everyFieldSet()))
        for key in HostFields.table.knownKeys where key != "id" {
            XCTAssertNotEqual(full[key], blank[key], "set \(key) in everyFieldSet(), so the round trips below cover it")
        }
    }

    func testEveryStoredPropertyOfHostIsInTheTable() {
        let properties = Mirror(reflecting: ShelfCore.Host()).children.compactMap(\.label)
        let keys = HostFields.table.fields.map(\.key)
        XCTAssertEqual(Set(properties), Set(keys + ["extra"]), "a Host property missing from HostFields (or gone)")
        XCTAssertEqual(keys.count, Set(keys).count, "a field declared twice")
    }

    func testTheSchemasColumnsAreTheTablesColumns() throws {
        let home = TempHome()
        let store = try Store(path: home.sshelfHome + "/data/store.sqlite")
        let schema = try store.db.query(
            "SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info('hosts')"
        ) { row in
            StoreColumn(row.text(0), Self.declaration(row))
        }
        XCTAssertEqual(
            Set(schema.map(\.name)), Set(HostFields.table.columns.map(\.name)),
            "a column the table does not declare, or a declared column no migration adds")
        for column in HostFields.table.columns {
            XCTAssertEqual(
                schema.first { $0.name == column.name }?.declaration, column.declaration,
                "column \(column.name): its migration and its field say different things")
        }
        XCTAssertEqual(HostFields.table.columns.first?.name, "id")
    }

    /// A column's declaration as a migration writes it, from what SQLite reports of it.
    static func declaration(_ row: Statement) -> String {
        var words = [row.text(1)]
        if row.int(4) != 0 { words.append("PRIMARY KEY") }
        if row.int(2) != 0 { words.append("NOT NULL") }
        if let value = row.optionalText(3) { words.append("DEFAULT \(value)") }
        return words.joined(separator: " ")
    }

    func testEveryFieldButTheIDIsInExactlyOneSyncGroup() {
        let grouped = FieldGroups.groups(for: .host).flatMap(\.fields)
        let keys = HostFields.table.fields.map(\.key).filter { $0 != "id" }
        XCTAssertEqual(grouped.sorted(), keys.sorted())
        XCTAssertEqual(
            FieldGroups.names(for: .host),
            [
                "name", "aliases", "endpoint", "user", "group", "tags", "auth", "jump", "options", "notes", "pq",
                "record", "created", "updated", "connected", "extra",
            ], "the groups and their order are what every synced entry was stamped with")
        XCTAssertEqual(FieldGroups.setNames(for: .host), ["aliases", "tags"])
        XCTAssertEqual(
            FieldGroups.groups(for: .host).filter(\.quiet).map(\.name), ["created", "updated", "connected"])
    }

    func testAHostWithEveryFieldSetComesBackWholeThroughJSONTheStoreAndTheCatalog() throws {
        let host = Self.everyFieldSet()
        let json = try ShelfJSON.encoder().encode(host)
        XCTAssertEqual(try ShelfJSON.decoder().decode(ShelfCore.Host.self, from: json), host)
        let body = try JSONDecoder().decode([String: JSONValue].self, from: json)
        XCTAssertEqual(Set(body.keys), HostFields.table.knownKeys.union(["future"]), "every field is written")

        let home = TempHome()
        let store = try Store(path: home.sshelfHome + "/data/store.sqlite")
        try store.write { store in try store.save(host) }
        XCTAssertEqual(try store.host(id: host.id), host)
        XCTAssertEqual(try store.hosts(), [host])
        let table = try store.hostTable(useCache: false)
        XCTAssertEqual(table.host(at: try XCTUnwrap(table.index(of: host.id))), host)
    }

    /// The bulk insert's rows (an import's: packed value by value, each field read where it lies in the host) are the
    /// rows a save binds, for a host with every field set and for one with every field at its default (NULLs, empty
    /// texts, no pinned key).
    func testABulkInsertStoresEveryFieldAsASaveDoes() throws {
        let full = Self.everyFieldSet()
        let blank = ShelfCore.Host(
            name: "blank", hostname: "b", createdAt: Date(timeIntervalSince1970: 1_700_000_000),
            updatedAt: Date(timeIntervalSince1970: 1_700_000_000))
        let home = TempHome()
        let bulk = try Store(path: home.sshelfHome + "/bulk/store.sqlite")
        let saved = try Store(path: home.sshelfHome + "/saved/store.sqlite")
        try bulk.bulkWrite { store in try store.insert(newHosts: [full, blank]) }
        try saved.write { store in try store.save(hosts: [full, blank]) }
        XCTAssertEqual(try bulk.host(id: full.id), full)
        XCTAssertEqual(try bulk.host(id: blank.id), blank)
        let columns = HostFields.table.columnList
        let rows = { (store: Store) in
            try store.db.query("SELECT \(columns) FROM hosts ORDER BY name") { row in
                (0..<row.columnCount).map { "\(row.columnName($0))=\(row.isNull($0) ? "NULL" : row.text($0))" }
            }
        }
        XCTAssertEqual(try rows(bulk), try rows(saved), "column by column, NULLs included")
    }

    func testARowIsReadByColumnNameNotPlace() throws {
        let host = Self.everyFieldSet()
        let home = TempHome()
        let store = try Store(path: home.sshelfHome + "/data/store.sqlite")
        try store.write { store in try store.save(host) }
        let reversed = HostFields.table.columns.map(\.name).reversed().joined(separator: ", ")
        let read = try store.db.query("SELECT \(reversed) FROM hosts", row: HostRow.reader())
        XCTAssertEqual(read, [host])
    }
}

/// Snippets are declared the same way (SnippetFields): the same checks.
final class SnippetFieldTableTests: XCTestCase {
    func testEveryStoredPropertyIsInTheTableAndTheSchemaIsTheTables() throws {
        let properties = Mirror(reflecting: Snippet()).children.compactMap(\.label)
        XCTAssertEqual(Set(properties), Set(SnippetFields.table.fields.map(\.key) + ["extra"]))
        let home = TempHome()
        let store = try Store(path: home.sshelfHome + "/data/store.sqlite")
        let schema = try store.db.query(
            "SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info('snippets')"
        ) { row in StoreColumn(row.text(0), HostFieldTableTests.declaration(row)) }
        XCTAssertEqual(schema.map(\.name).sorted(), SnippetFields.table.columns.map(\.name).sorted())
        for column in SnippetFields.table.columns {
            XCTAssertEqual(schema.first { $0.name == column.name }?.declaration, column.declaration, column.name)
        }
        XCTAssertEqual(FieldGroups.names(for: .snippet), ["name", "command", "tags", "updated", "extra"])
        XCTAssertEqual(FieldGroups.setNames(for: .snippet), ["tags"])
        XCTAssertEqual(FieldGroups.groups(for: .snippet).filter(\.quiet).map(\.name), ["updated"])
    }

    func testASnippetWithEveryFieldSetComesBackWholeThroughJSONAndTheStore() throws {
        let snippet = Snippet(
            name: "restart", command: "sudo systemctl restart {{unit:nginx}}", tags: ["ops", "web"],
            updatedAt: Date(timeIntervalSince1970: 1_700_000_000.5), extra: ["future": .bool(true)])
        let json = try ShelfJSON.encoder().encode(snippet)
        XCTAssertEqual(try ShelfJSON.decoder().decode(Snippet.self, from: json), snippet)
        let home = TempHome()
        let store = try Store(path: home.sshelfHome + "/data/store.sqlite")
        try store.write { store in try store.save(snippet) }
        XCTAssertEqual(try store.snippets(), [snippet])
        XCTAssertEqual(
            Validation.problems(Snippet(name: "-x", command: "", tags: [""])).map(\.field),
            [
                "name", "command", "tags",
            ])
    }
}
