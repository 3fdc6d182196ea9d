// GroupOperationsTests: the group tree as every face changes it (GroupOperations) on a scratch store — a path
// created once and reused, a bad path refused, a move into its own subtree or onto a taken name refused (nothing
// created on the way), and a delete that takes what the group holds only when asked to.
import Foundation
import ShelfCore
import ShelfOperations
import ShelfStore
import XCTest

final class GroupOperationsTests: XCTestCase {
    func testAPathIsCreatedOnceAndReused() throws {
        let scratch = try ScratchStore()
        let leaf = try XCTUnwrap(try GroupOperations.create("eu/prod/web", in: scratch.store))
        XCTAssertEqual(leaf.name, "web")
        let again = try GroupOperations.create("/eu/prod/web/", in: scratch.store)
        XCTAssertEqual(again?.id, leaf.id, "a leading or trailing '/' names the same group")
        try GroupOperations.create("eu/prod/db", in: scratch.store)
        XCTAssertEqual(try scratch.groupPaths(), ["eu", "eu/prod", "eu/prod/db", "eu/prod/web"])
        XCTAssertNil(try GroupOperations.create("", in: scratch.store), "the top level")
        let tree = GroupTree(try scratch.store.groups())
        XCTAssertEqual(tree.children(of: tree.find("eu/prod")?.id).map(\.sortOrder), [0, 1], "each new one last")
    }

    func testABadPathIsRefusedAndNothingIsCreated() throws {
        let scratch = try ScratchStore()
        for path in ["eu//prod", "eu/../prod", "eu/./prod"] {
            XCTAssertThrowsError(try GroupOperations.create(path, in: scratch.store), path)
        }
        XCTAssertEqual(try scratch.groupPaths(), [])
    }

    func testAGroupCannotMoveInsideItself() throws {
        let scratch = try ScratchStore()
        try GroupOperations.create("eu/prod", in: scratch.store)
        let eu = try XCTUnwrap(GroupTree(try scratch.store.groups()).find("eu"))
        for parent in ["eu/prod", "eu", "eu/prod/new"] {
            XCTAssertThrowsError(try GroupOperations.place(eu, under: parent, in: scratch.store), parent) { error in
                XCTAssertEqual("\(error)", "cannot move 'eu' inside itself")
            }
        }
        XCTAssertEqual(try scratch.groupPaths(), ["eu", "eu/prod"], "no parent was created on the way")
    }

    func testAMoveOrRenameOntoATakenPathIsRefused() throws {
        let scratch = try ScratchStore()
        try GroupOperations.create("eu/web", in: scratch.store)
        try GroupOperations.create("us/web", in: scratch.store)
        let usWeb = try XCTUnwrap(GroupTree(try scratch.store.groups()).find("us/web"))
        XCTAssertThrowsError(try GroupOperations.place(usWeb, under: "eu", in: scratch.store)) { error in
            XCTAssertEqual("\(error)", "group 'eu/web' already exists")
            XCTAssertNotNil((error as? ShelfError)?.hint)
        }
        var renamed = usWeb
        renamed.name = "api"
        let placed = try GroupOperations.place(renamed, under: "eu", in: scratch.store)
        XCTAssertEqual([placed.oldPath, placed.path], ["us/web", "eu/api"])
        XCTAssertTrue(placed.existed)
        XCTAssertEqual(try scratch.groupPaths(), ["eu", "eu/api", "eu/web", "us"])
        var slash = renamed
        slash.name = "a/b"
        XCTAssertThrowsError(try GroupOperations.place(slash, under: "", in: scratch.store))
        XCTAssertEqual(try scratch.groupPaths(), ["eu", "eu/api", "eu/web", "us"])
    }

    func testDeletingAGroupTakesWhatItHoldsOnlyWhenAsked() throws {
        let scratch = try ScratchStore()
        let host = try HostOperations.save(
            ShelfCore.Host(name: "web", hostname: "10.0.0.1"), groupPath: "eu/prod", in: scratch.store
        ).host
        _ = try ForwardOperations.save(
            PortForwardRule(hostID: host.id, kind: .local, bindPort: 8080, targetHost: "web", targetPort: 80),
            in: scratch.store)
        let outside = try HostOperations.save(
            ShelfCore.Host(name: "db", hostname: "10.0.0.2"), groupPath: "us", in: scratch.store
        ).host
        let eu = try XCTUnwrap(GroupTree(try scratch.store.groups()).find("eu"))
        XCTAssertThrowsError(try GroupOperations.delete(eu.id, recursive: false, in: scratch.store)) { error in
            XCTAssertEqual((error as? ShelfError)?.kind, .usage)
            XCTAssertEqual("\(error)", "group 'eu' holds 1 host and 1 group")
        }
        XCTAssertEqual(try scratch.hostNames(), ["db", "web"])
        let holder = try XCTUnwrap(try GroupOperations.create("us/empty", in: scratch.store))
        let us = try XCTUnwrap(GroupTree(try scratch.store.groups()).find("us"))
        _ = try HostOperations.save(outside, groupPath: "", in: scratch.store)
        XCTAssertThrowsError(try GroupOperations.delete(us.id, recursive: false, in: scratch.store)) { error in
            XCTAssertEqual("\(error)", "group 'us' holds 0 hosts and 1 group", "a subgroup alone is kept too")
        }
        _ = try XCTUnwrap(try GroupOperations.delete(holder.id, recursive: false, in: scratch.store))
        _ = try HostOperations.save(outside, groupPath: "us", in: scratch.store)
        let deleted = try XCTUnwrap(try GroupOperations.delete(eu.id, recursive: true, in: scratch.store))
        XCTAssertEqual(
            [deleted.deletion.subgroups, deleted.deletion.hosts, deleted.deletion.rules], [1, 1, 1], deleted.summary)
        XCTAssertEqual(try scratch.hostNames(), ["db"])
        XCTAssertEqual(try scratch.store.forwardRules(), [])
        XCTAssertEqual(try scratch.groupPaths(), ["us"])
        XCTAssertEqual(
            try scratch.store.host(id: outside.id)?.groupID, GroupTree(try scratch.store.groups()).find("us")?.id)
        XCTAssertNil(try GroupOperations.delete(eu.id, recursive: true, in: scratch.store), "gone already")
        let empty = try XCTUnwrap(GroupTree(try scratch.store.groups()).find("us"))
        _ = try HostOperations.save(outside, groupPath: "", in: scratch.store)
        XCTAssertEqual(
            try GroupOperations.delete(empty.id, recursive: false, in: scratch.store)?.summary, "deleted group us")
    }
}
