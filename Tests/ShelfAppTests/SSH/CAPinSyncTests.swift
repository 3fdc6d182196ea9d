// CAPinSyncTests: a CA pin (`trust --ca`) travels to the other device through a real folder remote, signed and sealed
// like a host's pin: there it vouches for a host certificate with no prompt; removing it syncs; the remote replaying
// the entry that added it, or holding a CA line of its own, changes nothing; no byte of the pin is readable there.
import Foundation
import TestSupport
import XCTest

final class CAPinSyncTests: XCTestCase {
    func testACAPinReachesTheOtherDeviceAndItsRemovalToo() throws {
        let ca = try TestKey.generate(.ed25519)
        var options = SSHD.Options()
        options.hostKeyTypes = [.ed25519]
        options.hostCertificate = SSHD.HostCertificate(
            caPrivatePath: ca.privatePath, principals: ["127.0.0.1"], validity: "-5m:+1h")
        let world = try SSHCLIWorld(options: options)
        let caLine = ca.publicLine.split(separator: " ").prefix(2).joined(separator: " ")
        let a = world.home, b = syncHome()
        a.extraEnvironment = b.extraEnvironment
        let remote = try syncRemote("ca-pins")
        XCTAssertExit(try a.run("sync", "enable", "--folder", remote), 0)
        let folderA = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: remote + "/devices").first)
        XCTAssertExit(try b.run("sync", "enable", "--folder", remote), 0)
        try enroll(b, by: a)
        let before = try b.run("exec", "t", "--no-stdin", "--", "true")
        XCTAssertExit(before, 255)
        XCTAssertTrue(before.stderr.contains("is not known"), before.stderr)

        let pinned = try a.run("trust", "--ca", caLine, "--hosts", "[127.0.0.1]:*")
        XCTAssertExit(pinned, 0)
        XCTAssertTrue(pinned.stdout.contains("(a CA pin: it syncs like host pins)"), pinned.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: world.knownHostsPath), "the pin is in the store")
        XCTAssertExit(try a.run("sync", "now"), 0)
        XCTAssertExit(try b.run("sync", "now"), 0)
        // B trusts the host through the pin A made: no prompt, no --accept-new, and no key pinned.
        let exec = try b.run("exec", "t", "--no-stdin", "--", "echo", "certified")
        XCTAssertExit(exec, 0)
        XCTAssertEqual(exec.stdout, "certified\n")
        XCTAssertTrue(exec.stderr.contains("pinned in sshelf's CA pins"), exec.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: b.sshelfHome + "/data/known_hosts"))
        // The remote holds sealed entries only: the CA's key is not there in any readable form.
        let needles = ["ca key": Array(caLine.split(separator: " ")[1].utf8)]
        XCTAssertEqual(SecretScan.hits(remote, for: needles), [])

        // Removed on A (for its patterns): gone on B once synced.
        let missing = try a.run("trust", "--ca", caLine, "--hosts", "other.example", "--remove")
        XCTAssertExit(missing, 3)
        XCTAssertTrue(missing.stderr.contains("is not trusted for other.example"), missing.stderr)
        XCTAssertExit(try a.run("trust", "--ca", caLine, "--remove"), 0)
        XCTAssertExit(try a.run("sync", "now"), 0)
        XCTAssertExit(try b.run("sync", "now"), 0)
        let after = try b.run("exec", "t", "--no-stdin", "--", "true")
        XCTAssertExit(after, 255)
        XCTAssertTrue(after.stderr.contains("is not known"), after.stderr)

        // The remote replays A's entry that added the pin as A's next one, and writes a CA line of its own: refused,
        // and B still does not trust the CA.
        let entries = try FileManager.default.contentsOfDirectory(atPath: remote + "/devices/" + folderA)
            .filter { $0.hasSuffix(".entry") }.sorted()
        let adding = try XCTUnwrap(entries.dropLast().last), last = try XCTUnwrap(entries.last)
        let next = String(format: "%010d.entry", (Int(last.prefix(10)) ?? 0) + 1)
        try FileManager.default.copyItem(
            atPath: remote + "/devices/\(folderA)/\(adding)", toPath: remote + "/devices/\(folderA)/\(next)")
        try "@cert-authority * \(caLine)\n".write(toFile: remote + "/known_hosts", atomically: true, encoding: .utf8)
        let replayed = try b.run("sync", "now")
        XCTAssertTrue(replayed.stderr.contains("moved or renamed on the remote"), replayed.stderr)
        let still = try b.run("exec", "t", "--no-stdin", "--", "true")
        XCTAssertExit(still, 255)
        XCTAssertTrue(still.stderr.contains("is not known"), still.stderr)
    }
}
