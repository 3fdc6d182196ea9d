// Background sync through the user service with the TUI closed (docs/SERVICE.md): two HOMEs, two service processes
// on one folder remote — an edit on A reaches B, a waiting device is enrolled by the inviter's service, and a service
// killed with SIGKILL during a run loses nothing once restarted (store, vault and remote checked, both converging).
import Foundation
import TestSupport
import XCTest

final class ServiceSyncTests: XCTestCase {
    private func hostNames(_ home: TempHome) throws -> Set<String> {
        let listed = try home.run("list", "--json")
        guard listed.status == 0,
            let rows = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]]
        else { return [] }
        return Set(rows.compactMap { $0["name"] as? String })
    }

    private func remote(_ home: TempHome) throws -> String {
        let path = home.root + "/remote"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    func testAWaitingDeviceIsEnrolledByTheInvitersServiceAndEditsFlowBothWays() throws {
        let a = syncHome(), b = syncHome()
        let folder = try remote(a)
        XCTAssertExit(try a.run("add", "from-a", "--host", "10.0.0.1"), 0)
        XCTAssertExit(try a.run("sync", "enable", "--folder", folder), 0)
        let serviceA = try RunningService(a)
        XCTAssertExit(try b.run("sync", "enable", "--folder", folder), 0)  // not enrolled yet: a fallback
        let joined = try b.run(["sync", "join", "--code-fd", "3"], fd3: try inviteCode(try a.run("sync", "invite")))
        XCTAssertExit(joined, 0)
        let serviceB = try RunningService(b)
        // Nobody runs `sync now`: A's service sees B's claim in the folder and enrolls it; B's service sees the
        // welcome and syncs in.
        try eventually("B to be enrolled and have A's host", context: { serviceA.log + "\n" + serviceB.log }) {
            try hostNames(b).contains("from-a")
        }
        XCTAssertTrue(serviceA.log.contains("enrolled "), serviceA.log)

        // The TUI is closed: an edit on either device reaches the other through both services.
        XCTAssertExit(try a.run("add", "edit-on-a", "--host", "10.0.0.2"), 0)
        try eventually("A's edit on B", context: { serviceA.log + "\n" + serviceB.log }) {
            try hostNames(b).contains("edit-on-a")
        }
        XCTAssertExit(try b.run("edit", "from-a", "--host", "10.0.0.99"), 0)
        try eventually("B's edit on A", context: { serviceA.log + "\n" + serviceB.log }) {
            try a.run("show", "from-a").stdout.contains("10.0.0.99")
        }
        XCTAssertEqual(serviceA.sync()["failures"] as? Int, 0)
    }

    func testKillDuringASyncLosesNothing() throws {
        let a = syncHome(), b = syncHome()
        let folder = try remote(a)
        XCTAssertExit(try a.run("sync", "enable", "--folder", folder), 0)
        XCTAssertExit(try b.run("sync", "enable", "--folder", folder), 0)
        try enroll(b, by: a)
        // Enough hosts that a run takes a while, imported while no service runs.
        let config = (1...1500).map { "Host bulk-\($0)\n  HostName 10.1.\($0 / 250).\($0 % 250)\n" }.joined()
        let file = try a.write(config, to: "bulk_config")
        XCTAssertExit(try a.run("import", "ssh-config", file), 0)

        let first = try RunningService(a)
        // SIGKILL as soon as its run is seen under way (or, on a fast machine, just after it).
        _ = try eventually(
            "the service's run to start", poll: 0.005, observe: { first.sync()["runs"] as? Int ?? 0 },
            until: { _ in first.sync()["state"] as? String == "syncing" || (first.sync()["runs"] as? Int ?? 0) > 0 })
        kill(first.process.pid, SIGKILL)
        _ = try first.process.waitExit()

        // Restarted, it resumes: everything pending goes out, and B gets every host.
        let second = try RunningService(a)
        try eventually("A's service to sync after the restart", context: { second.log }) {
            let sync = second.sync()
            let pending = try a.run("sync", "status", "--json").stdout.contains("\"pendingUp\" : 0")
            return sync["state"] as? String == "idle" && sync["lastResult"] as? String == "synced" && pending
        }
        let synced = try b.run("sync", "now")
        XCTAssertExit(synced, 0)
        let names = try hostNames(b)
        XCTAssertEqual(names.filter { $0.hasPrefix("bulk-") }.count, 1500, synced.stdout + synced.stderr)
        // Store and vault intact, and the chain goes on: a later edit still reaches B without a fork or a refusal.
        XCTAssertExit(try a.run("check"), 0)
        XCTAssertExit(try a.run("vault", "status"), 0)
        XCTAssertExit(try a.run("add", "after-kill", "--host", "10.2.0.1"), 0)
        try eventually("the edit after the restart to reach B", context: { second.log }) {
            let run = try b.run("sync", "now")
            let names = try hostNames(b)
            return run.status == 0 && !run.stderr.contains("fallback") && names.contains("after-kill")
        }
        let status = try b.run("sync", "status")
        XCTAssertFalse(status.stdout.contains("fallback"), status.stdout)
    }
}
