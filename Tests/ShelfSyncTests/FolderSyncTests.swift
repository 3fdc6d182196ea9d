// Folder sync between two and three real stores: edits on different devices in different orders converge;
// last writer wins on the same record; deletes travel as tombstones; unknown fields survive.
import Foundation
import ShelfCore
import ShelfStore
import ShelfSync
import XCTest

final class FolderSyncTests: XCTestCase {
    func testThreeDevicesConvergeWhateverTheOrder() throws {
        let remote = try makeFolder()
        try threeDevices { device in try device.enable(folder: remote) }
    }

    /// The same edits through a bare git repository (file URL): each device commits only its own folder.
    func testThreeDevicesConvergeThroughGit() throws {
        let base = try makeFolder("git3")
        let git = Process()
        git.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        git.arguments = ["init", "--quiet", "--bare", base + "/remote.git"]
        try git.run()
        git.waitUntilExit()
        try threeDevices { device in
            try SyncSettings(transport: .git, location: "file://" + base + "/remote.git").save(to: device.store)
        }
    }

    func threeDevices(_ enable: (Device) throws -> Void) throws {
        let a = try Device(), b = try Device(), c = try Device()
        for device in [a, b, c] { try enable(device) }

        let group = HostGroup(name: "prod")
        try a.store.write { try $0.save(group) }
        let web = try a.add("web", group: group.id)
        let db = try b.add("db")
        _ = try c.add("cache")
        c.sync(); a.sync(); b.sync(); c.sync()

        // Different edits on different devices: rename, move, edit, delete, new group.
        var webOnB = try XCTUnwrap(try b.store.host(id: web.id))
        webOnB.name = "web-renamed"
        try b.store.write { try $0.save(webOnB) }
        var dbOnC = try XCTUnwrap(try c.store.host(id: db.id))
        dbOnC.groupID = group.id
        dbOnC.port = 2222
        try c.store.write { try $0.save(dbOnC) }
        let cacheOnA = try XCTUnwrap(try a.host("cache"))
        try a.store.write { try $0.deleteHost(cacheOnA.id) }
        try b.store.write { try $0.save(HostGroup(name: "staging")) }

        b.sync(); a.sync(); c.sync(); b.sync(); a.sync()
        let states = try [a.state(), b.state(), c.state()]
        XCTAssertEqual(states[0], states[1])
        XCTAssertEqual(states[1], states[2])
        XCTAssertEqual(try a.store.hosts().map(\.name).sorted(), ["db", "web-renamed"])
        XCTAssertEqual(try c.store.host(id: db.id)?.port, 2222)
        XCTAssertEqual(Set(try b.store.groups().map(\.name)), ["prod", "staging"])
        XCTAssertNil(try c.host("cache"))
    }

    func testSameHostLaterEditWinsDifferentHostsBothSurvive() throws {
        let remote = try makeFolder()
        let a = try Device(), b = try Device()
        try a.enable(folder: remote)
        try b.enable(folder: remote)
        let one = try a.add("one"), two = try a.add("two")
        a.sync(); b.sync()

        // Different hosts edited concurrently: both edits survive.
        var oneOnA = try XCTUnwrap(try a.store.host(id: one.id))
        oneOnA.user = "alice"
        var twoOnB = try XCTUnwrap(try b.store.host(id: two.id))
        twoOnB.user = "bob"
        // The same host edited on both: B's edit is later (its clock runs ahead), so it wins everywhere.
        var sharedOnA = oneOnA
        a.store.now = { Date(timeIntervalSince1970: 2_000_000_000) }
        b.store.now = { Date(timeIntervalSince1970: 2_000_000_100) }
        try a.store.write { try $0.save(sharedOnA) }
        try b.store.write { try $0.save(twoOnB) }
        sharedOnA.port = 1111
        try a.store.write { try $0.save(sharedOnA) }
        var oneOnB = try XCTUnwrap(try b.store.host(id: one.id))
        oneOnB.port = 2222
        try b.store.write { try $0.save(oneOnB) }

        a.sync(); b.sync(); a.sync()
        XCTAssertEqual(try a.state(), try b.state())
        XCTAssertEqual(try a.store.host(id: two.id)?.user, "bob")
        XCTAssertEqual(try a.store.host(id: one.id)?.port, 2222, "the later edit wins")
        XCTAssertEqual(try b.store.host(id: one.id)?.port, 2222)
    }

    func testUnknownFieldsAndKindsFromANewerDeviceAreKeptOrSkipped() throws {
        let remote = try makeFolder()
        let a = try Device()
        try a.enable(folder: remote)
        a.sync()
        // A "newer" device writes a host with a field and an enum value this version does not know, and a
        // record kind it does not know.
        let device = UUID().uuidString.lowercased()
        let layout = RemoteLayout(root: remote)
        try FileManager.default.createDirectory(atPath: layout.configDirectory(device), withIntermediateDirectories: true)
        try #"{"id":"\#(device)","name":"new","format":1}"#.write(toFile: layout.deviceFile(device), atomically: true, encoding: .utf8)
        let id = UUID().uuidString.lowercased()
        let lines = """
            {"v":1,"kind":"host","id":"\(id)","wall":1,"counter":0,"device":"\(device)","body":{"name":"future","hostname":"f.example","authMethod":"passkey","colour":"teal"}}
            {"v":1,"kind":"snippet","id":"\(UUID().uuidString.lowercased())","wall":1,"counter":1,"device":"\(device)","body":{}}

            """
        try lines.write(toFile: layout.configDirectory(device) + "/00000001.jsonl", atomically: true, encoding: .utf8)
        let report = a.sync()
        XCTAssertEqual(report.pulled, 1)
        XCTAssertTrue(report.skipped.contains { $0.contains("record kind 'snippet'") }, "\(report.skipped)")
        let host = try XCTUnwrap(try a.host("future"))
        XCTAssertEqual(host.authMethod.rawValue, "passkey")
        XCTAssertEqual(host.extra["colour"], .string("teal"))
        // Edited here, it goes back out with the unknown field intact.
        var edited = host
        edited.port = 2200
        try a.store.write { try $0.save(edited) }
        a.sync()
        let mine = try a.store.deviceID
        let last = try XCTUnwrap(FolderRemote(path: remote).batches(of: mine).last)
        let batch = try String(contentsOfFile: layout.configDirectory(mine) + "/" + last, encoding: .utf8)
        XCTAssertTrue(batch.contains(#""colour":"teal""#), batch)
        XCTAssertTrue(batch.contains(#""authMethod":"passkey""#), batch)
    }
}
