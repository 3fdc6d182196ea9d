// HostOperationsTests: `add`, `edit`, `mv` and `rm` as every face runs them (HostOperations) on a scratch store —
// field rules, one name per host (aliases included, ignoring case), the group path, the jump-chain cycle, and a
// jump host kept while others still go through it. A refused change leaves the store as it was.
import Foundation
import ShelfCore
import ShelfOperations
import ShelfStore
import XCTest

final class HostOperationsTests: XCTestCase {
    func testANewHostIsSavedAndAnEditKeepsItsIdentity() throws {
        let scratch = try ScratchStore()
        let added = try HostOperations.save(
            ShelfCore.Host(name: "web", hostname: "10.0.0.1"), groupPath: nil, in: scratch.store)
        XCTAssertFalse(added.existed)
        var changed = added.host
        changed.port = 2222
        changed.user = "deploy"
        let edited = try HostOperations.save(changed, groupPath: nil, in: scratch.store)
        XCTAssertTrue(edited.existed)
        let stored = try XCTUnwrap(try scratch.store.host(id: added.host.id))
        XCTAssertEqual([stored.port, stored.user.count], [2222, 6])
        XCTAssertEqual(try scratch.hostNames(), ["web"], "an edit is not a second host")
    }

    func testFieldRulesRefuseTheSaveAndSayWhichField() throws {
        let scratch = try ScratchStore()
        let bad = ShelfCore.Host(name: "web", hostname: "10.0.0.1", port: 70_000, tags: ["two words"])
        XCTAssertThrowsError(try HostOperations.save(bad, groupPath: "eu", in: scratch.store)) { error in
            let shelf = error as? ShelfError
            XCTAssertEqual(shelf?.kind, .invalid, "\(error)")
            XCTAssertTrue(shelf?.message.contains("port") ?? false, "\(error)")
            XCTAssertTrue(shelf?.message.contains("tag") ?? false, "every problem is named: \(error)")
        }
        XCTAssertEqual(try scratch.hostNames(), [])
        XCTAssertEqual(try scratch.groupPaths(), [], "the group path is rolled back with the refused host")
    }

    func testANameOrAliasAnotherHostAnswersToIsRefusedIgnoringCase() throws {
        let scratch = try ScratchStore()
        let (web, db) = (
            ShelfCore.Host(name: "web", hostname: "10.0.0.1", aliases: ["www"]),
            ShelfCore.Host(name: "db", hostname: "10.0.0.2")
        )
        try scratch.seed(web, db)
        let sameName = ShelfCore.Host(name: "WEB", hostname: "10.0.0.3")
        XCTAssertThrowsError(try HostOperations.save(sameName, groupPath: nil, in: scratch.store)) { error in
            let taken = error as? HostOperations.NameTaken
            XCTAssertEqual(taken?.other.id, web.id, "\(error)")
            XCTAssertEqual(taken?.isAlias, false)
            XCTAssertTrue(taken?.message.contains("a host named 'web' already exists") ?? false, "\(error)")
        }
        var renamed = db
        renamed.aliases = ["WWW"]
        XCTAssertThrowsError(try HostOperations.save(renamed, groupPath: nil, in: scratch.store)) { error in
            let taken = error as? HostOperations.NameTaken
            XCTAssertEqual(taken?.isAlias, true, "\(error)")
            XCTAssertTrue(taken?.message.contains("already an alias of host 'web'") ?? false, "\(error)")
        }
        XCTAssertEqual(try scratch.store.host(id: db.id)?.aliases, [], "the refused edit changed nothing")
        XCTAssertTrue(
            try HostOperations.save(sameName, groupPath: nil, allowDuplicateName: true, in: scratch.store).host.name
                == "WEB",
            "allowed when asked for (import --allow-duplicates)")
        var note = web
        note.notes = "hosts that share a name (sync can bring that) stay editable"
        XCTAssertTrue(try HostOperations.save(note, groupPath: nil, in: scratch.store).existed)
    }

    func testAMoveCreatesTheGroupPathAndTheTopLevelTakesTheHostOut() throws {
        let scratch = try ScratchStore()
        let host = try HostOperations.save(
            ShelfCore.Host(name: "web", hostname: "10.0.0.1"), groupPath: "eu/prod", in: scratch.store
        ).host
        XCTAssertEqual(try scratch.groupPaths(), ["eu", "eu/prod"])
        let tree = GroupTree(try scratch.store.groups())
        XCTAssertEqual(try scratch.store.host(id: host.id)?.groupID, tree.find("eu/prod")?.id)
        _ = try HostOperations.save(host, groupPath: "eu/prod", in: scratch.store)
        XCTAssertEqual(try scratch.groupPaths(), ["eu", "eu/prod"], "an existing path is reused")
        _ = try HostOperations.save(host, groupPath: "/", in: scratch.store)
        XCTAssertNil(try scratch.store.host(id: host.id)?.groupID)
        XCTAssertEqual(try scratch.groupPaths(), ["eu", "eu/prod"], "moving out leaves the groups")
        XCTAssertThrowsError(try HostOperations.save(host, groupPath: "eu/../x", in: scratch.store))
        XCTAssertEqual(try scratch.groupPaths(), ["eu", "eu/prod"])
    }

    func testAJumpChainThatWouldLoopIsRefused() throws {
        let scratch = try ScratchStore()
        let bastion = ShelfCore.Host(name: "bastion", hostname: "10.0.0.1")
        var app = ShelfCore.Host(name: "app", hostname: "10.0.0.2")
        app.jumpHostIDs = [bastion.id]
        try scratch.seed(bastion, app)
        var looping = bastion
        looping.jumpHostIDs = [app.id]
        XCTAssertThrowsError(try HostOperations.save(looping, groupPath: nil, in: scratch.store)) { error in
            XCTAssertEqual((error as? ShelfError)?.kind, .invalid)
            XCTAssertTrue("\(error)".contains("jump chain would loop: bastion -> app -> bastion"), "\(error)")
        }
        XCTAssertEqual(try scratch.store.host(id: bastion.id)?.jumpHostIDs, [])
    }

    func testAJumpHostStaysWhileOthersJumpThroughItUnlessTheyGoToo() throws {
        let scratch = try ScratchStore()
        let bastion = ShelfCore.Host(name: "bastion", hostname: "10.0.0.1")
        var app = ShelfCore.Host(name: "app", hostname: "10.0.0.2")
        app.jumpHostIDs = [bastion.id]
        let other = ShelfCore.Host(name: "other", hostname: "10.0.0.3")
        try scratch.seed(bastion, app, other)
        let rule = PortForwardRule(hostID: bastion.id, kind: .local, bindPort: 8080, targetHost: "web", targetPort: 80)
        _ = try ForwardOperations.save(rule, in: scratch.store)

        XCTAssertThrowsError(
            try HostOperations.delete([bastion.id, other.id], refuseIfJumpedThrough: true, in: scratch.store)
        ) { error in
            let refused = error as? HostOperations.StillJumpedThrough
            XCTAssertEqual(refused?.jumps.map(\.host), ["bastion"], "\(error)")
            XCTAssertEqual(refused?.jumps.first?.dependents, ["app"])
            XCTAssertTrue(refused?.message.hasSuffix("nothing was removed") ?? false)
            XCTAssertTrue(refused?.hint.contains("sshelf edit app --jump NAME") ?? false, "\(refused?.hint ?? "")")
        }
        XCTAssertEqual(try scratch.hostNames(), ["app", "bastion", "other"], "nothing was removed")

        let both = try HostOperations.delete(
            [bastion.id, app.id, bastion.id], refuseIfJumpedThrough: true, in: scratch.store)
        XCTAssertEqual(both.map(\.name), ["bastion", "app"], "each host once")
        XCTAssertEqual(both.map(\.rules), [1, 0], "the jump host's forward rule went with it")
        XCTAssertEqual(try scratch.store.forwardRules(), [])
        XCTAssertEqual(try scratch.hostNames(), ["other"])
        XCTAssertEqual(try HostOperations.delete([app.id], in: scratch.store).count, 0, "gone already: skipped")
    }

    func testForcedRemovalOfAJumpHostSaysWhoJumpedThroughIt() throws {
        let scratch = try ScratchStore()
        let bastion = ShelfCore.Host(name: "bastion", hostname: "10.0.0.1")
        var app = ShelfCore.Host(name: "app", hostname: "10.0.0.2")
        app.jumpHostIDs = [bastion.id]
        try scratch.seed(bastion, app)
        let deleted = try HostOperations.delete([bastion.id], in: scratch.store)
        XCTAssertEqual(deleted.first?.dependents, ["app"])
        XCTAssertEqual(deleted.first?.summary, "deleted bastion; note: app jumped through it (see 'sshelf check')")
    }
}
