// ServiceForwardsTests: which forward rules the user service starts (ServiceForwards.autostart) — enabled autostart
// rules on loopback, by host; a rule listening on the network or of a deleted host left out with why; and a signature
// that changes when a rule or its host does (the service restarts that host's forwards), read from a scratch store.
import Foundation
import ShelfCore
@testable import ShelfServices
import ShelfStore
import TestSupport
import XCTest

final class ServiceForwardsTests: XCTestCase {
    func testOnlyEnabledLoopbackAutostartRulesRunGroupedByHost() throws {
        let home = TempHome()
        let store = try Store(path: DataLocations.resolve(environment: home.environment).store)
        let web = ShelfCore.Host(name: "web", hostname: "10.0.0.1")
        let db = ShelfCore.Host(name: "db", hostname: "10.0.0.2")
        let rules = [
            PortForwardRule(
                hostID: web.id, kind: .local, bindPort: 8080, targetHost: "x", targetPort: 80, autostart: true),
            PortForwardRule(hostID: web.id, kind: .dynamic, bindPort: 1080, autostart: true),
            PortForwardRule(
                hostID: db.id, kind: .local, bindPort: 5432, targetHost: "x", targetPort: 5432, autostart: true),
            PortForwardRule(hostID: db.id, kind: .local, bindPort: 5433, targetHost: "x", targetPort: 5432),
            PortForwardRule(
                hostID: db.id, kind: .local, bindPort: 5434, targetHost: "x", targetPort: 5432, autostart: true,
                enabled: false),
            PortForwardRule(
                hostID: db.id, kind: .local, bindAddress: "0.0.0.0", bindPort: 5435, targetHost: "x",
                targetPort: 5432, autostart: true),
        ]
        try store.write { store in
            try store.save(web)
            try store.save(db)
            for rule in rules { try store.save(rule) }
        }
        let found = try ServiceForwards.autostart(store)
        XCTAssertEqual(found.rules.map(\.0.name), ["db", "web"])
        XCTAssertEqual(found.rules.map { $0.1.map(\.bindPort).sorted() }, [[5432], [1080, 8080]])
        XCTAssertEqual(found.skipped.count, 1)
        XCTAssertTrue(found.skipped.first?.contains("listens on 0.0.0.0, not loopback") ?? false, "\(found.skipped)")

        var moved = db
        moved.port = 2222
        try store.write { try $0.save(moved) }
        let after = try ServiceForwards.autostart(store)
        XCTAssertNotEqual(after.signature, found.signature, "a host's change is a change of its forwards")
        XCTAssertEqual(try ServiceForwards.autostart(store).signature, after.signature, "and nothing else is")
    }

    func testTheRulesOfADeletedHostAreLeftOutWithWhy() throws {
        let home = TempHome()
        let store = try Store(path: DataLocations.resolve(environment: home.environment).store)
        let gone = UUID()
        try store.write { store in
            try store.save(
                PortForwardRule(
                    hostID: gone, kind: .local, bindPort: 8080, targetHost: "x", targetPort: 80, autostart: true))
        }
        let found = try ServiceForwards.autostart(store)
        XCTAssertEqual(found.rules.count, 0)
        XCTAssertEqual(found.skipped, ["1 rule(s) belong to a deleted host; skipped"])
    }
}
