// Sync through a bare git repository reached over ssh, on the test sshd, with the user's own ssh settings
// (GIT_SSH_COMMAND) — the path a real user's `git@server:repo.git` takes.
import Foundation
import ShelfCore
import ShelfStore
import ShelfSync
import TestSupport
import XCTest

final class GitOverSSHTests: XCTestCase {
    var sshd: SSHD?

    /// Released, not only stopped: XCTest keeps the test case until the process exits, and the server's folder
    /// goes with the object.
    override func tearDown() { sshd = nil }

    func testTwoDevicesThroughGitOverSSH() throws {
        try TestAccount.ensure()
        let key = try TestKey.generate(.ed25519)
        var options = SSHD.Options()
        options.authorizedKeys = [key.publicLine]
        let server = try SSHD.start(options)
        sshd = server
        // The repository belongs to the test account, as it would on a real server.
        let base = try makeFolder("git-ssh")
        let bare = base + "/remote.git"
        _ = try Shell.run(TestTool.git.path, ["init", "--quiet", "--bare", bare])
        _ = try Shell.run(TestTool.chown.path, ["-R", TestAccount.name, base])
        chmod(base, 0o755)
        setenv(
            "GIT_SSH_COMMAND",
            "ssh -F none -i \(key.privatePath) -o IdentitiesOnly=yes -o BatchMode=yes -o StrictHostKeyChecking=no -o "
                + "UserKnownHostsFile=/dev/null -o LogLevel=ERROR", 1)
        defer { unsetenv("GIT_SSH_COMMAND") }
        let url = "ssh://\(TestAccount.name)@127.0.0.1:\(server.port)\(bare)"

        let a = try Device("a"), b = try Device("b")
        for device in [a, b] { try device.enable(git: url) }
        _ = try a.add("over-ssh-a")
        _ = try b.add("over-ssh-b")
        try formGroup([a, b])
        a.sync()
        XCTAssertEqual(try a.state(), try b.state())
        XCTAssertEqual(try b.store.hosts().map(\.name).sorted(), ["over-ssh-a", "over-ssh-b"])
        XCTAssertTrue(server.waitForLog("Accepted publickey for \(TestAccount.name)"), server.log)
    }
}
