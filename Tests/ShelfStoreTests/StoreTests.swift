// Store: CRUD, nested groups, search, unknown fields through SQLite, migrations from the first schema, and
// refusal of damaged, foreign, newer and loose files (never overwriting them).
import Foundation
import ShelfCore
@testable import ShelfStore
import TestSupport
import XCTest

final class StoreTests: XCTestCase {
    var home: TempHome!
    var path: String { home.sshelfHome + "/data/store.sqlite" }

    override func setUp() { home = TempHome() }

    func testCRUDOfEveryRecordKind() throws {
        let store = try Store(path: path)
        let prod = HostGroup(name: "prod"), eu = HostGroup(name: "eu", parentID: prod.id)
        let identity = Identity(name: "laptop", keyType: .ed25519, publicKey: "ssh-ed25519 AAAA x")
        var host = ShelfCore.Host(
            name: "db", hostname: "10.0.0.5", port: 2222, user: "pg", groupID: eu.id, tags: ["sql", "eu"],
            authMethod: .publickey, identityID: identity.id,
            passwordRef: .hostPassword(UUID()), pinnedHostKey: PinnedHostKey(type: "ssh-ed25519", key: "AAAA"),
            notes: "line1\nline2", extra: ["future": .string("kept")])
        let rule = PortForwardRule(
            hostID: host.id, name: "pg", kind: .local, bindPort: 5432, targetHost: "localhost",
            targetPort: 5432, autostart: true)
        try store.write { store in
            try store.save(prod)
            try store.save(eu)
            try store.save(identity)
            try store.save(host)
            try store.save(rule)
        }
        let reopened = try Store(path: path)
        let loaded = try XCTUnwrap(try reopened.host(id: host.id))
        XCTAssertEqual(loaded.extra, host.extra)
        XCTAssertEqual(loaded.passwordRef, host.passwordRef)
        XCTAssertEqual(loaded.pinnedHostKey, host.pinnedHostKey)
        XCTAssertEqual(loaded.tags, ["sql", "eu"])
        XCTAssertEqual(loaded.createdAt.timeIntervalSince1970, host.createdAt.timeIntervalSince1970, accuracy: 0.001)
        let loadedIdentity = try XCTUnwrap(try reopened.identities().first)
        XCTAssertEqual(loadedIdentity.id, identity.id)
        XCTAssertEqual(loadedIdentity.publicKey, identity.publicKey)
        XCTAssertEqual(loadedIdentity.keyType, .ed25519)
        XCTAssertEqual(try reopened.forwardRules(hostID: host.id).map(\.id), [rule.id])
        XCTAssertEqual(GroupTree(try reopened.groups()).path(of: loaded.groupID), "prod/eu")

        host.port = 22
        try reopened.save(host)
        XCTAssertEqual(try reopened.host(id: host.id)?.port, 22)
        try reopened.deleteHost(host.id)
        XCTAssertNil(try reopened.host(id: host.id))
        // The rule stays (flat relation) and is reported as orphaned, not lost.
        XCTAssertEqual(try reopened.forwardRules().count, 1)
        XCTAssertTrue(try reopened.problems().contains { $0.kind == .orphanForward })
    }

    func testNamesAreNotUnique() throws {
        let store = try Store(path: path)
        try store.save(ShelfCore.Host(name: "prod", hostname: "a"))
        try store.save(ShelfCore.Host(name: "prod", hostname: "b"))
        XCTAssertEqual(try store.hosts(named: "prod").count, 2)
        XCTAssertEqual(try store.hosts(named: "PROD").count, 2)
    }

    func testSearchOverNameHostUserTagsAndGroupPath() throws {
        let store = try Store(path: path)
        let group = HostGroup(name: "Frankfurt")
        try store.save(group)
        try store.write { store in
            try store.save(
                hosts: (0..<2000).map { i in
                    ShelfCore.Host(
                        name: "host\(i)", hostname: "10.0.\(i / 256).\(i % 256)", user: i % 2 == 0 ? "deploy" : "root",
                        groupID: i % 10 == 0 ? group.id : nil, tags: i % 100 == 0 ? ["Critical"] : [])
                })
        }
        XCTAssertEqual(try store.searchHosts("").count, 2000)
        XCTAssertEqual(try store.searchHosts("critical").count, 20)
        XCTAssertEqual(try store.searchHosts("frankfurt").count, 200)
        XCTAssertEqual(try store.searchHosts("frankfurt deploy").count, 200)
        XCTAssertEqual(try store.searchHosts("frankfurt root").count, 0)
        XCTAssertEqual(try store.searchHosts("host1999").map(\.name), ["host1999"])
        XCTAssertEqual(try store.searchHosts("100%").count, 0, "LIKE wildcards in the filter are literal")
        XCTAssertEqual(try store.searchHosts("", inGroups: [group.id]).count, 200)
    }

    func testMigratesAFirstSchemaFile() throws {
        do {
            let v1 = try Store(path: path, migrateTo: 1)
            XCTAssertEqual(v1.schemaVersion, 1)
            try v1.db.run(
                "INSERT INTO hosts(id, name, hostname, tags) VALUES (?, 'Legacy', 'old.example', 'tagA')",
                [.text(UUID().uuidString.lowercased())])
        }
        let store = try Store(path: path)
        XCTAssertEqual(store.schemaVersion, Store.latestVersion)
        XCTAssertEqual(try store.searchHosts("taga legacy").map(\.hostname), ["old.example"])
        XCTAssertEqual(try store.hosts().first?.unresolvedJump, "")
    }

    func testDamagedFileIsRefusedAndNeverOverwritten() throws {
        try PrivateDirectory.make(home.sshelfHome + "/data")
        var garbage = Data("SQLite format 3\0".utf8)
        garbage.append(Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31) }))
        XCTAssertTrue(
            FileManager.default.createFile(atPath: path, contents: garbage, attributes: [.posixPermissions: 0o600]))
        XCTAssertThrowsError(try Store(path: path)) { error in
            let store = error as? StoreError
            XCTAssertEqual(store?.kind, .corrupt, "\(error)")
            XCTAssertTrue(store?.hint?.contains("will not overwrite") == true)
        }
        XCTAssertEqual(FileManager.default.contents(atPath: path), garbage)
    }

    func testForeignDatabaseIsRefused() throws {
        try PrivateDirectory.make(home.sshelfHome + "/data")
        XCTAssertTrue(
            FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]))
        let other = try Database(path: path)
        try other.execute("CREATE TABLE music(title TEXT); INSERT INTO music VALUES ('x');")
        XCTAssertThrowsError(try Store(path: path)) { XCTAssertEqual(($0 as? StoreError)?.kind, .foreign) }
        XCTAssertEqual(try other.scalarInt("SELECT count(*) FROM music"), 1)
    }

    func testNewerFormatIsRefused() throws {
        do { _ = try Store(path: path) }
        let raw = try Database(path: path)
        try raw.execute("PRAGMA user_version=\(Store.latestVersion + 1)")
        XCTAssertThrowsError(try Store(path: path)) { XCTAssertEqual(($0 as? StoreError)?.kind, .newerFormat) }
    }

    func testLooseStoreIsRefused() throws {
        do { _ = try Store(path: path) }
        chmod(path, 0o644)
        XCTAssertThrowsError(try Store(path: path)) { error in
            XCTAssertEqual((error as? StoreError)?.kind, .permissions)
            XCTAssertTrue((error as? StoreError)?.hint?.contains("chmod 600") == true)
        }
    }
}

enum PrivateDirectory {
    static func make(_ path: String) throws {
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
    }
}
