// ConfigImportTests: `import ssh-config` as both faces run it (ConfigImport) on a scratch home — a dry run that
// writes nothing, an import whose ProxyJump becomes the stored jump host and whose --group path is created, a second
// import that adds nothing, and a broken line refused with nothing written.
import Foundation
import ShelfCore
import ShelfOperations
import ShelfStore
import XCTest

final class ConfigImportTests: XCTestCase {
    func config(_ scratch: ScratchStore, _ text: String) throws -> String {
        let directory = scratch.home.home + "/.ssh"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        chmod(directory, 0o700)
        let path = directory + "/config"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        return path
    }

    let text = """
        Host bastion
            HostName 10.0.0.1
            User ops
        Host app
            HostName 10.0.0.2
            ProxyJump bastion

        """

    func testADryRunWritesNothingAndAnImportKeepsTheJump() throws {
        let scratch = try ScratchStore()
        _ = try config(scratch, text)
        let dry = try ConfigImport.run(
            path: nil, groupPath: "imported", dryRun: true, workspace: scratch.workspace(), store: { scratch.store })
        XCTAssertEqual(dry.summary.added.sorted(), ["app", "bastion"])
        XCTAssertTrue(dry.text.hasPrefix("dry run, nothing written: "), dry.text)
        XCTAssertEqual(try scratch.hostNames(), [], "a dry run writes nothing")
        XCTAssertEqual(try scratch.groupPaths(), [])

        let done = try ConfigImport.run(
            path: nil, groupPath: "imported", dryRun: false, workspace: scratch.workspace(), store: { scratch.store })
        XCTAssertEqual(done.summary.added.sorted(), ["app", "bastion"])
        XCTAssertEqual(try scratch.hostNames(), ["app", "bastion"])
        let hosts = try scratch.store.hosts()
        let bastion = try XCTUnwrap(hosts.first { $0.name == "bastion" })
        let app = try XCTUnwrap(hosts.first { $0.name == "app" })
        XCTAssertEqual(app.jumpHostIDs, [bastion.id], "ProxyJump names a stored host")
        XCTAssertEqual(bastion.user, "ops")
        XCTAssertEqual(try scratch.groupPaths(), ["imported"])
        XCTAssertEqual(app.groupID, GroupTree(try scratch.store.groups()).find("imported")?.id)

        let again = try ConfigImport.run(
            path: nil, groupPath: "imported", dryRun: false, workspace: scratch.workspace(), store: { scratch.store })
        XCTAssertEqual(again.summary.added, [], "an import again adds nothing")
        XCTAssertEqual(again.summary.unchanged, 2)
        XCTAssertEqual(try scratch.hostNames(), ["app", "bastion"])
    }

    func testALineSshWouldRefuseStopsTheImport() throws {
        let scratch = try ScratchStore()
        let path = try config(scratch, text + "Host broken\n    HostName \"10.0.0.3\n")
        XCTAssertThrowsError(
            try ConfigImport.run(path: path, dryRun: false, workspace: scratch.workspace(), store: { scratch.store })
        ) { error in
            XCTAssertEqual((error as? ShelfError)?.kind, .invalid, "\(error)")
        }
        XCTAssertEqual(try scratch.hostNames(), [], "nothing is written")
    }
}
