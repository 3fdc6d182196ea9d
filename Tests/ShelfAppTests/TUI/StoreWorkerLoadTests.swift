// StoreWorkerLoadTests: what the TUI's store worker delivers for a load — the first screenful and then the whole
// catalog when the screen has nothing yet, and only the whole catalog once it has shown every host (a first
// screenful then would drop a search's results and the marks of hosts after it until the rebuild lands).
import Foundation
import ShelfCore
import ShelfOperations
@testable import ShelfTUIApp
import ShelfUI
import TestSupport
import XCTest

final class StoreWorkerLoadTests: XCTestCase {
    /// The catalogs one load delivers, in order: (host count, whole?).
    private func load(_ worker: StoreWorker, _ mailbox: Mailbox) throws -> [(count: Int, whole: Bool)] {
        worker.submit(.load)
        var delivered: [(count: Int, whole: Bool)] = []
        try eventually("the load's whole catalog") {
            for case .loaded(let catalog) in mailbox.take() {
                delivered.append((catalog.table.count, catalog.isComplete))
            }
            return delivered.last?.whole == true
        }
        return delivered
    }

    func testAFirstScreenfulOnlyBeforeEveryHostWasShown() throws {
        let home = TempHome()
        let hosts = CatalogLoader.firstScreenful + 44
        let config = (1...hosts).map { "Host web-\($0)\n  HostName 10.1.\($0 / 256).\($0 % 256)\n" }.joined()
        XCTAssertExit(try home.run("import", "ssh-config", try home.write(config, to: "config")), 0)
        // No cached catalog: the worker builds it, as on a first start after a change.
        let store = DataLocations.resolve(environment: home.environment).store
        try? FileManager.default.removeItem(atPath: store + ".catalog")
        let mailbox = Mailbox()
        let worker = StoreWorker(workspace: Workspace(environment: home.environment, warn: { _ in }), mailbox: mailbox)

        let first = try load(worker, mailbox)
        XCTAssertEqual(first.map(\.count), [CatalogLoader.firstScreenful, hosts], "rows first, then every host")
        XCTAssertEqual(first.map(\.whole), [false, true])

        // Another program changes the store: the cached catalog is stale, and the screen shows every host already.
        XCTAssertExit(try home.run("add", "db-1", "--host", "10.2.0.1"), 0)
        let reload = try load(worker, mailbox)
        XCTAssertEqual(reload.map(\.count), [hosts + 1], "only the whole catalog: no first screenful in between")
        XCTAssertEqual(reload.map(\.whole), [true])
    }
}
