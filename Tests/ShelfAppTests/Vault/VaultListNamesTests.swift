// VaultListNamesTests: `vault list` names the host or identity each item is for — a shared host name as NAME@ID, an
// item whose record is gone as its short id — and --json keeps the reference key beside the name.
import Foundation
import ShelfStore
import TestSupport
import XCTest

final class VaultListNamesTests: XCTestCase {
    func testItemsAreNamedByTheirHostAndIdentity() throws {
        let home = TempHome()
        home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1", "SSHELF_TEST_WEAK_KDF": "1"]
        XCTAssertExit(try home.run(["add", "web1", "--host", "web1.example"]), 0)
        XCTAssertExit(try home.run(["vault", "set-password", "web1", "--secret-fd", "0"], stdin: "pw\n"), 0)
        XCTAssertExit(try home.run(["keygen", "work"]), 0)

        let listed = try home.run(["vault", "list", "--json"])
        XCTAssertExit(listed, 0)
        let items = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        let byName = Dictionary(uniqueKeysWithValues: items.map { ($0["name"] as? String ?? "", $0) })
        XCTAssertEqual(Set(byName.keys), ["host web1", "identity work"])
        XCTAssertTrue((byName["host web1"]?["key"] as? String)?.hasPrefix("host.") == true, "the reference key stays")
        XCTAssertEqual(byName["identity work"]?["family"] as? String, "identity.privkey")
        let keyOfWork = try XCTUnwrap(byName["identity work"]?["key"] as? String)

        let text = try home.run(["vault", "list"]).stdout
        let rows = text.split(separator: "\n").map(String.init)
        XCTAssertTrue(rows.contains { $0.hasPrefix(keyOfWork) && $0.hasSuffix("identity work") }, text)
        XCTAssertTrue(rows.contains { $0.contains("host.password") && $0.hasSuffix("host web1") }, text)

        // A name two hosts share is told apart as commands take it; an item whose host is gone says so.
        XCTAssertExit(try home.run(["add", "web1", "--host", "other.example", "--allow-duplicate"]), 0)
        XCTAssertTrue(try home.run(["vault", "list"]).stdout.contains("host web1@"), "NAME@ID")
        // (The record removed the way another device's delete arrives by sync: from the store, not the vault.)
        let store = try Store(path: home.sshelfHome + "/data/store.sqlite")
        let identity = try XCTUnwrap(try store.identities().first)
        try store.write { try $0.deleteIdentity(identity.id) }
        let orphan = try home.run(["vault", "list"]).stdout
        let shortID = identity.id.uuidString.lowercased().prefix(8)
        XCTAssertTrue(orphan.contains("identity \(shortID) (not in the store)"), orphan)
    }
}
