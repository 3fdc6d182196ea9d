// Store threads: one store used from two threads at once — a write committing on one thread while another reads, as
// the TUI did when a session's note read the store while the connect's outcome was saved — neither fails nor breaks
// the file for the next reader (the connection lets one thread in at a time).
import Foundation
import ShelfCore
@testable import ShelfStore
import TestSupport
import XCTest

final class StoreThreadsTests: XCTestCase {
    func testWritesOnOneThreadAndReadsOnAnotherShareAConnectionSafely() throws {
        let home = TempHome()
        let path = home.sshelfHome + "/data/store.sqlite"
        let store = try Store(path: path)
        // Commits without waiting for the disk: the test is about the connection, not fsync (FULL takes ~85 ms here).
        try store.db.execute("PRAGMA synchronous=OFF")
        let host = ShelfCore.Host(
            name: "t", hostname: "127.0.0.1",
            options: ["ServerAliveInterval 30", "AddKeysToAgent yes"])
        try store.save(host)
        let writes = 400
        // Shared on purpose (the store is not Sendable): the test is that sharing it is safe.
        final class Box: @unchecked Sendable {
            let store: Store
            init(_ store: Store) { self.store = store }
            var errors: [String] = []
            var done = false
            let lock = NSLock()
            func add(_ error: Error) { lock.lock(); errors.append("\(error)"); lock.unlock() }
            var finished: Bool { lock.lock(); defer { lock.unlock() }; return done }
        }
        let box = Box(store)
        // The record's thread: read-modify-write of the host, committed (BackgroundRecord's ConnectPlan.record).
        let writer = Thread {
            for _ in 0..<writes {
                do {
                    try box.store.write { store in
                        guard var saved = try store.host(id: host.id) else { return }
                        saved.lastConnectedAt = Date()
                        try store.save(saved)
                    }
                } catch { box.add(error) }
            }
            box.lock.lock(); box.done = true; box.lock.unlock()
        }
        writer.start()
        // The main thread's reads meanwhile (the option note: the defaults and the host).
        var reads = 0
        while !box.finished {
            do {
                _ = try store.optionDefaults()
                _ = try store.hosts()
                reads += 1
            } catch { box.add(error) }
        }
        XCTAssertEqual(box.errors, [], "after \(reads) reads")
        XCTAssertGreaterThan(reads, 0)
        // Another connection (the TUI's own) reads the file afterwards.
        let other = try Store(path: path)
        XCTAssertNotNil(try other.host(id: host.id)?.lastConnectedAt)
        XCTAssertEqual(try other.hosts().count, 1)
    }
}
