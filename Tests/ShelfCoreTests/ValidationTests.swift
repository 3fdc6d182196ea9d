// Validation: each field rule with its message, and the cross-record checks (cycles, dangling references).
import Foundation
import ShelfCore
import XCTest

final class ValidationTests: XCTestCase {
    func host(_ change: (inout ShelfCore.Host) -> Void) -> ShelfCore.Host {
        var host = ShelfCore.Host(name: "web", hostname: "web.example.com")
        change(&host)
        return host
    }

    func testValidHostHasNoProblems() {
        XCTAssertEqual(
            Validation.problems(
                host {
                    $0.hostname = "2001:db8::1"; $0.tags = ["a", "b-c"]
                }), [])
        // What OpenSSH still allows: a scoped address, a domain user, a $ in a user, a jump chain with ports.
        XCTAssertEqual(
            Validation.problems(
                host {
                    $0.hostname = "fe80::1%eth0"; $0.user = "DOM\\svc$";
                    $0.unresolvedJump = "ops@bastion:2222,[2001:db8::1]:22"
                }), [])
    }

    func testFieldRulesTable() {
        let cases: [(String, (inout ShelfCore.Host) -> Void, String)] = [
            ("port zero", { $0.port = 0 }, "port 0 is out of range (1-65535)"),
            ("port too big", { $0.port = 65536 }, "port 65536 is out of range (1-65535)"),
            ("empty hostname", { $0.hostname = "" }, "hostname is empty"),
            ("hostname with space", { $0.hostname = "a b" }, "hostname contains whitespace"),
            ("option injection", { $0.hostname = "-oProxyCommand=sh" }, "hostname starts with '-'"),
            ("escape in name", { $0.name = "web\u{1B}[31m" }, "name contains a control character (U+001B)"),
            ("bidi override", { $0.name = "web\u{202E}" }, "name contains a control character (U+202E)"),
            ("empty name", { $0.name = "  " }, "name is empty"),
            ("long name", { $0.name = String(repeating: "n", count: 257) }, "name is longer than 256 bytes"),
            (
                "long hostname", { $0.hostname = String(repeating: "h", count: 256) },
                "hostname is longer than 255 bytes"
            ),
            ("user with space", { $0.user = "a b" }, "user contains whitespace"),
            ("tag with comma", { $0.tags = ["a,b"] }, "tag 'a,b' contains whitespace or ','"),
            ("unknown auth", { $0.authMethod = AuthMethod(rawValue: "telepathy") }, "unknown auth method 'telepathy'"),
            ("huge notes", { $0.notes = String(repeating: "x", count: 70_000) }, "notes are longer than 65536 bytes"),
            // OpenSSH's own rules (ssh_valid_hostname / ssh_valid_ruser): such a value would reach ProxyCommand's
            // %h and %r as shell syntax.
            (
                "command in hostname", { $0.hostname = "$(touch${IFS}pwned)" },
                "hostname contains '$', which a shell reads as syntax (OpenSSH refuses it too: such a value reaches "
                    + "ProxyCommand through %h, %r and %n)"
            ),
            (
                "quote in hostname", { $0.hostname = "a\"b" },
                "hostname contains '\"', which a shell reads as syntax (OpenSSH refuses it too: such a value reaches "
                    + "ProxyCommand through %h, %r and %n)"
            ),
            (
                "comma in hostname", { $0.hostname = "a,b" },
                "hostname contains ',', which a shell reads as syntax (OpenSSH refuses it too: such a value reaches "
                    + "ProxyCommand through %h, %r and %n)"
            ),
            (
                "backtick in user", { $0.user = "`id`" },
                "user contains '`', which a shell reads as syntax (OpenSSH refuses it too: such a value reaches "
                    + "ProxyCommand through %h, %r and %n)"
            ),
            (
                "quote in user", { $0.user = "o'brien" },
                "user contains \"'\", which a shell reads as syntax (OpenSSH refuses it too: such a value reaches "
                    + "ProxyCommand through %h, %r and %n)"
            ),
            (
                "user ending in backslash", { $0.user = "x\\" },
                "user ends with '\\', which would escape what follows it in a shell"
            ),
            (
                "ProxyJump text", { $0.unresolvedJump = "j;id" },
                "ProxyJump 'j;id' contains ';', which a jump hop cannot have"
            ),
            ("line separator in name", { $0.name = "a\u{2028}b" }, "name contains a control character (U+2028)"),
        ]
        for (label, change, message) in cases {
            XCTAssertEqual(Validation.problems(host(change)).map(\.message), [message], label)
        }
    }

    func testGroupPathsAreAbsoluteWithoutEmptyPartsAndOfBoundedDepth() throws {
        XCTAssertEqual(try GroupTree.parsePath(""), [])
        XCTAssertEqual(try GroupTree.parsePath("/"), [])
        XCTAssertEqual(try GroupTree.parsePath("prod/eu"), ["prod", "eu"])
        XCTAssertEqual(try GroupTree.parsePath("/prod/eu/"), ["prod", "eu"])
        XCTAssertEqual(try GroupTree.parsePath(" prod / eu "), ["prod", "eu"])
        let refused: [(String, String)] = [
            ("..", "no relative parts"), ("prod/../eu", "contains '..'"), ("./prod", "contains '.'"),
            ("prod//eu", "empty part"), ("//", "empty part"), ("prod/ /eu", "empty part"),
            (Array(repeating: "g", count: GroupTree.maxDepth + 1).joined(separator: "/"), "33 levels deep"),
        ]
        for (path, message) in refused {
            XCTAssertThrowsError(try GroupTree.parsePath(path), path) { error in
                XCTAssertEqual((error as? ValidationError)?.field, "group")
                XCTAssertTrue((error as? ValidationError)?.message.contains(message) == true, "\(path): \(error)")
            }
        }
        XCTAssertEqual(
            try GroupTree.parsePath(Array(repeating: "g", count: GroupTree.maxDepth).joined(separator: "/")).count,
            GroupTree.maxDepth)
    }

    func testSelfJumpIsRejected() {
        var h = host { _ in }
        h.jumpHostIDs = [h.id]
        XCTAssertEqual(Validation.problems(h).map(\.field), ["jump"])
    }

    func testGroupNameRules() {
        XCTAssertEqual(Validation.problems(HostGroup(name: "a/b")).map(\.field), ["name"])
        XCTAssertEqual(Validation.problems(HostGroup(name: "")).map(\.message), ["group name is empty"])
        let g = HostGroup(name: "x")
        XCTAssertEqual(Validation.problems(HostGroup(id: g.id, name: "x", parentID: g.id)).map(\.field), ["parent"])
    }

    func testForwardRuleRules() {
        XCTAssertEqual(
            Validation.problems(PortForwardRule(kind: .local, bindPort: 8080, targetHost: "db", targetPort: 5432)), [])
        XCTAssertEqual(Validation.problems(PortForwardRule(kind: .dynamic, bindPort: 1080)), [])
        for target in ["a\"b", "x\\"] {
            XCTAssertEqual(
                Validation.problems(PortForwardRule(kind: .local, bindPort: 8080, targetHost: target, targetPort: 80))
                    .map(\.field), ["targetHost"], target)
        }
        let bad = PortForwardRule(kind: .local, bindPort: 0, targetHost: "", targetPort: 99999)
        XCTAssertEqual(Set(Validation.problems(bad).map(\.field)), ["bindPort", "targetHost", "targetPort"])
    }

    func testCyclesAndDanglingReferencesAreReportedNotDropped() {
        var a = HostGroup(name: "a"), b = HostGroup(name: "b")
        a.parentID = b.id
        b.parentID = a.id
        var h1 = ShelfCore.Host(name: "h1", hostname: "h1"), h2 = ShelfCore.Host(name: "h2", hostname: "h2")
        h1.jumpHostIDs = [h2.id]
        h2.jumpHostIDs = [h1.id]
        var h3 = ShelfCore.Host(name: "h3", hostname: "h3")
        h3.jumpHostIDs = [UUID()]
        h3.identityID = UUID()
        h3.groupID = UUID()
        let orphan = PortForwardRule(hostID: UUID(), kind: .dynamic, bindPort: 1080)
        let problems = ModelCheck.problems(groups: [a, b], hosts: [h1, h2, h3], identities: [], rules: [orphan])
        let kinds = problems.map(\.kind)
        XCTAssertEqual(kinds.filter { $0 == .groupCycle }.count, 2)
        XCTAssertEqual(kinds.filter { $0 == .jumpCycle }.count, 2)
        XCTAssertTrue(kinds.contains(.missingJumpHost))
        XCTAssertTrue(kinds.contains(.missingIdentity))
        XCTAssertTrue(kinds.contains(.missingGroup))
        XCTAssertTrue(kinds.contains(.orphanForward))
        XCTAssertTrue(problems.first { $0.kind == .orphanForward }!.message.contains("kept"))
    }

    func testGroupTreeSurvivesCyclesAndResolvesPaths() {
        let prod = HostGroup(name: "prod"), eu = HostGroup(name: "eu", parentID: prod.id)
        var x = HostGroup(name: "x"), y = HostGroup(name: "y")
        x.parentID = y.id
        y.parentID = x.id
        let tree = GroupTree([prod, eu, x, y])
        XCTAssertEqual(tree.path(of: eu.id), "prod/eu")
        XCTAssertEqual(tree.find("prod/eu")?.id, eu.id)
        XCTAssertEqual(tree.find("/prod//eu/")?.id, eu.id)
        XCTAssertNil(tree.find("prod/us"))
        // Both cycle members stay reachable from the top.
        XCTAssertEqual(Set(tree.flattened().map(\.group.id)), [prod.id, eu.id, x.id, y.id])
        XCTAssertTrue(ModelCheck.wouldCycle(group: prod.id, parent: eu.id, in: tree.groups))
        XCTAssertFalse(ModelCheck.wouldCycle(group: eu.id, parent: nil, in: tree.groups))
    }
}
