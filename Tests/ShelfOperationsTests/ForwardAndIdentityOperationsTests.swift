// ForwardAndIdentityOperationsTests: forward rules saved only for a host that exists and within the field rules, and
// an identity deleted with the hosts that used it keeping everything but the identity (ForwardOperations,
// IdentityOperations) on a scratch store.
import Foundation
import ShelfCore
import ShelfOperations
import ShelfStore
import XCTest

final class ForwardAndIdentityOperationsTests: XCTestCase {
    func testARuleNeedsItsHostAndPassesTheFieldRules() throws {
        let scratch = try ScratchStore()
        let host = ShelfCore.Host(name: "web", hostname: "10.0.0.1")
        try scratch.seed(host)
        let rule = PortForwardRule(hostID: host.id, kind: .local, bindPort: 8080, targetHost: "db", targetPort: 5432)
        XCTAssertEqual(try ForwardOperations.save(rule, in: scratch.store), "web")
        let orphan = PortForwardRule(hostID: UUID(), kind: .local, bindPort: 8081, targetHost: "db", targetPort: 5432)
        XCTAssertThrowsError(try ForwardOperations.save(orphan, in: scratch.store)) { error in
            XCTAssertEqual((error as? ShelfError)?.kind, .notFound)
        }
        var bad = rule
        bad.id = UUID()
        bad.bindPort = 0
        XCTAssertThrowsError(try ForwardOperations.save(bad, in: scratch.store)) { error in
            XCTAssertEqual((error as? ShelfError)?.kind, .invalid, "\(error)")
        }
        XCTAssertEqual(try scratch.store.forwardRules().map(\.id), [rule.id])
        XCTAssertEqual(try ForwardOperations.delete(rule.id, in: scratch.store)?.id, rule.id)
        XCTAssertNil(try ForwardOperations.delete(rule.id, in: scratch.store), "gone already")
    }

    func testDeletingAnIdentityClearsItFromItsHostsOnly() throws {
        let scratch = try ScratchStore()
        let identity = Identity(name: "deploy", publicKey: "ssh-ed25519 AAAA")
        try scratch.store.write { try $0.save(identity) }
        let web = ShelfCore.Host(name: "web", hostname: "10.0.0.1", user: "ops", identityID: identity.id)
        let db = ShelfCore.Host(name: "db", hostname: "10.0.0.2", identityID: identity.id)
        let other = ShelfCore.Host(name: "other", hostname: "10.0.0.3")
        try scratch.seed(web, db, other)
        let warnings = Warnings()
        let deleted = try XCTUnwrap(
            try IdentityOperations.delete(identity.id, workspace: scratch.workspace(warnings), in: scratch.store))
        XCTAssertEqual(deleted.clearedHosts, 2)
        XCTAssertEqual(deleted.vaultItems, 0, "no key in the vault, no vault opened")
        XCTAssertEqual(warnings.all, [])
        XCTAssertEqual(try scratch.store.identities(), [])
        XCTAssertEqual(try scratch.store.hosts().compactMap(\.identityID), [])
        XCTAssertEqual(try scratch.store.host(id: web.id)?.user, "ops", "the host keeps its other fields")
        XCTAssertNil(try IdentityOperations.delete(identity.id, workspace: scratch.workspace(), in: scratch.store))
    }
}
