// BoundKeySyncTests: a key's host binding (`identity edit --only`) travels by sync like the identity's other
// fields — bound on one device, the other device's identity names the same host (by id) and lists it; cleared
// there, it is cleared on the first.
import Foundation
import TestSupport
import XCTest

final class BoundKeySyncTests: XCTestCase {
    private func onlyTo(_ home: TempHome, _ name: String) throws -> [String]? {
        let listed = try home.run(["identity", "list", "--json"])
        XCTAssertExit(listed, 0)
        let identities = (try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]]) ?? []
        return identities.first { $0["name"] as? String == name }?["onlyTo"] as? [String]
    }

    func testABindingReachesTheOtherDeviceAndAClearComesBack() throws {
        let remote = try syncRemote("bound-remote")
        let a = syncHome(), b = syncHome()
        XCTAssertExit(try a.run("add", "web", "--host", "w.example", "--group", "prod"), 0)
        XCTAssertExit(try a.run("keygen", "deploy"), 0)
        XCTAssertExit(try a.run("identity", "edit", "deploy", "--only", "web"), 0)
        let bound = try XCTUnwrap(try onlyTo(a, "deploy"))
        XCTAssertEqual(bound.count, 1)
        XCTAssertTrue(bound[0].hasPrefix("host:"), "\(bound)")
        XCTAssertExit(try a.run("sync", "enable", "--folder", remote), 0)
        _ = try b.run("sync", "enable", "--folder", remote)
        try enroll(b, by: a)
        XCTAssertExit(try b.run("sync", "now"), 0)

        XCTAssertEqual(try onlyTo(b, "deploy"), bound, "the same host, by id")
        XCTAssertTrue(try b.run("identity", "list").stdout.contains("only web"))

        XCTAssertExit(try b.run("identity", "edit", "deploy", "--only-clear", "--only", "@prod"), 0)
        XCTAssertExit(try b.run("sync", "now"), 0)
        XCTAssertExit(try a.run("sync", "now"), 0)
        let moved = try XCTUnwrap(try onlyTo(a, "deploy"))
        XCTAssertEqual(moved.count, 1)
        XCTAssertTrue(moved[0].hasPrefix("group:"), "\(moved)")
        XCTAssertTrue(try a.run("identity", "list").stdout.contains("only @prod"))
    }
}
