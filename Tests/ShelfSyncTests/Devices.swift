// Test devices for sync: each is its own SSHELF_HOME with a real store, syncing through a real folder.
import Foundation
import ShelfCore
import ShelfStore
import ShelfSync
import TestSupport
import XCTest

final class Device {
    let home = TempHome()
    let store: Store
    var locations: DataLocations { DataLocations.resolve(environment: home.environment) }

    init(fastDisk: Bool = false) throws {
        store = try Store(path: DataLocations.resolve(environment: home.environment).store)
    }

    @discardableResult
    func sync(file: StaticString = #filePath, line: UInt = #line) -> SyncReport {
        let report = SyncRunner.run(store: store, locations: locations, deviceName: "test")
        XCTAssertEqual(report.state, .synced, report.reason ?? "", file: file, line: line)
        return report
    }

    func enable(folder: String) throws { try SyncSettings(transport: .folder, location: folder).save(to: store) }

    func host(_ name: String) throws -> ShelfCore.Host? { try store.hosts(named: name).first }

    func add(_ name: String, hostname: String = "h.example", group: UUID? = nil) throws -> ShelfCore.Host {
        let host = ShelfCore.Host(name: name, hostname: hostname, groupID: group)
        try store.write { try $0.save(host) }
        return host
    }

    func state() throws -> [String] { try store.syncedState() }
}

func makeFolder(_ name: String = "remote") throws -> String {
    let path = (ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp") + "/sshelf-remote-\(UUID().uuidString.prefix(8))-\(name)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}
