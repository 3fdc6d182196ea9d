// Test devices for sync: each is its own SSHELF_HOME with a real store and a real vault, syncing through a real
// folder (or git) remote; helpers enroll devices into one group the way `sync invite` and `sync join` do.
import Foundation
import ShelfCore
import ShelfStore
import ShelfSync
import ShelfVault
import TestSupport
import XCTest

final class Device {
    let home = TempHome()
    let store: Store
    var vault: Vault
    let name: String
    /// The clock sync runs see (nil: the real one), so expiry can be tested without waiting.
    var clock: Date?

    var locations: DataLocations { DataLocations.resolve(environment: home.environment) }
    var id: String { (try? store.deviceID) ?? "" }
    var uuid: UUID { UUID(uuidString: id) ?? UUID() }

    /// A device with a new home, or with a copy of `fixture` (a saved SSHELF_HOME: data/ and state/); its vault
    /// stamps items with `vaultClock` when given (a test's own time, nothing waits for a second to pass).
    /// `id` forces the device id (a test that depends on the order of device folders).
    init(_ name: String = "device", fixture: String? = nil, vaultClock: VaultClock? = nil, id: UUID? = nil) throws {
        self.name = name
        home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1", "SSHELF_TEST_WEAK_KDF": "1"]
        if let fixture { try Device.install(fixture, into: home.sshelfHome) }
        let locations = DataLocations.resolve(environment: home.environment)
        store = try Store(path: locations.store)
        if let id { try store.setSetting("device.id", id.uuidString.lowercased()) }
        vault = try Device.openVault(locations, clock: vaultClock)
    }

    /// Copies a saved home into place with the modes sshelf insists on (git keeps none of them).
    static func install(_ fixture: String, into root: String) throws {
        try FileManager.default.createDirectory(
            atPath: (root as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixture, toPath: root)
        chmod(root, 0o700)
        for relative in try FileManager.default.subpathsOfDirectory(atPath: root) {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: root + "/" + relative, isDirectory: &isDirectory)
            chmod(root + "/" + relative, isDirectory.boolValue ? 0o700 : 0o600)
        }
    }

    /// This device's vault, opened again (another process would); `idle` drops whenUnlocked keys after that long.
    static func openVault(_ locations: DataLocations, idle: Duration = .seconds(900), clock: VaultClock? = nil) throws
        -> Vault
    {
        var options = VaultOptions(idleTimeout: idle, useKernelKeyring: false, minimumStretch: true)
        options.warn = { _ in }
        if let clock { options.clock = clock }
        return try Vault.open(locations, options: options, createIfMissing: true)
    }

    /// One run; asserts it synced unless told otherwise.
    @discardableResult
    func sync(
        revoke: UUID? = nil, expect state: SyncReport.State? = .synced, file: StaticString = #filePath,
        line: UInt = #line
    )
        -> SyncReport
    {
        let report = SyncRunner.run(
            store: store, locations: locations, deviceName: name, vault: .success(vault), revoke: revoke,
            now: clock ?? Date())
        if let state {
            XCTAssertEqual(
                report.state, state, "\(name): \(report.reason ?? "") \(report.skipped)", file: file, line: line)
        }
        // What `sync status`, the TUI's status line and the connect hints read is exactly what the run found.
        let saved = SyncRunner.lastReport(locations)
        XCTAssertEqual(saved?.state, report.state, "\(name): the saved status", file: file, line: line)
        XCTAssertEqual(saved?.reason, report.reason, "\(name): the saved reason", file: file, line: line)
        XCTAssertEqual(saved?.hint, report.hint, "\(name): the saved hint", file: file, line: line)
        XCTAssertEqual(saved?.membership, report.membership, "\(name): the saved membership", file: file, line: line)
        XCTAssertEqual(saved?.conflicts, report.conflicts, "\(name): the saved conflict count", file: file, line: line)
        return report
    }

    func enable(folder: String) throws { try SyncSettings(transport: .folder, location: folder).save(to: store) }

    func enable(git url: String) throws { try SyncSettings(transport: .git, location: url).save(to: store) }

    func host(_ name: String) throws -> ShelfCore.Host? { try store.hosts(named: name).first }

    @discardableResult
    func add(_ name: String, hostname: String = "h.example", group: UUID? = nil) throws -> ShelfCore.Host {
        let host = ShelfCore.Host(name: name, hostname: hostname, groupID: group)
        try store.write { try $0.save(host) }
        return host
    }

    func edit(_ id: UUID, _ change: (inout ShelfCore.Host) -> Void) throws {
        guard var host = try store.host(id: id) else { throw HarnessError("no host \(id)") }
        change(&host)
        try store.write { try $0.save(host) }
    }

    func state() throws -> [String] { try store.syncedState() }

    func invite(lifetime: TimeInterval = 3600) throws -> InviteCode {
        try GroupInfo.createInvite(store: store, vault: vault, lifetime: lifetime, now: clock ?? Date())
    }

    @discardableResult
    func join(_ code: InviteCode) throws -> Join.Result {
        try SyncRunner.join(
            code: code, store: store, locations: locations, deviceName: name, vault: vault, now: clock ?? Date())
    }

    /// This device's signing keys, as a test attacker that stole them would have them.
    func keys() throws -> SyncCrypto.DeviceKeys { try vault.deviceKeys(class: .afterFirstUnlockThisDeviceOnly) }
}

/// Makes `devices` one sync group through `remote` (already enabled on each): the first creates the group, each
/// other is invited by the first, joins, is enrolled and syncs in.
func formGroup(_ devices: [Device]) throws {
    guard let first = devices.first else { return }
    first.sync()
    for device in devices.dropFirst() {
        let code = try first.invite()
        first.sync()
        try device.join(code)
        first.sync()
        device.sync()
    }
    for device in devices { device.sync() }
}

func makeFolder(_ name: String = "remote") throws -> String {
    let path =
        (ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp")
        + "/sshelf-remote-\(UUID().uuidString)-\(name)"
    // Made here or not at all: a folder of the same name left by another schedule would hold another group's
    // entries, and a device founding a group there is told it is not enrolled — the likely cause of a convergence
    // failure seen once, when names had an 8-digit prefix and a run leaves about 4,000 of them.
    guard mkdir(path, 0o755) == 0 else { throw HarnessError("cannot make \(path): errno \(errno)") }
    return path
}

/// Devices a and b in one group on a new folder, a host `web` from a, and the same field edited on both without
/// either seeing the other (b's clock later: "bob" wins over "alice"); nothing synced since the edits.
func concurrentUserEdits() throws -> (remote: String, a: Device, b: Device, host: ShelfCore.Host) {
    let remote = try makeFolder()
    let a = try Device("a"), b = try Device("b")
    for device in [a, b] { try device.enable(folder: remote) }
    let host = try a.add("web", hostname: "web.example")
    try formGroup([a, b])
    a.store.now = { Date(timeIntervalSince1970: 2_000_000_000) }
    b.store.now = { Date(timeIntervalSince1970: 2_000_000_100) }
    try a.edit(host.id) { $0.user = "alice" }
    try b.edit(host.id) { $0.user = "bob" }
    return (remote, a, b, host)
}

/// A bare git repository to sync through, and its file URL.
func makeBareRepository(_ name: String = "git") throws -> (path: String, url: String) {
    let base = try makeFolder(name)
    let bare = base + "/remote.git"
    try Shell.run(TestTool.git.path, ["init", "--quiet", "--bare", bare])
    return (bare, "file://" + bare)
}

/// A saved fixture under Tests/Fixtures.
func fixture(_ name: String, file: StaticString = #filePath) -> String {
    URL(fileURLWithPath: "\(file)").deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
        "Fixtures/" + name
    ).path
}

/// Every file under `root`, relative, sorted.
func files(under root: String) -> [String] {
    var out: [String] = []
    let enumerator = FileManager.default.enumerator(atPath: root)
    while let relative = enumerator?.nextObject() as? String {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: root + "/" + relative, isDirectory: &isDirectory),
            !isDirectory.boolValue
        {
            out.append(relative)
        }
    }
    return out.sorted()
}
