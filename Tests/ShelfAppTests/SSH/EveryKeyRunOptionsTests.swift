// EveryKeyRunOptionsTests: `run`'s options on a host handed to OpenSSH (an RSA key the loaded libssh2 cannot sign
// with: 1.10) work as on sshelf's own client — `-l USER`, `-t`, `--stream`, and `--sudo` with the password typed only
// into sudo's marked prompt (not in ssh's arguments or environment, nor any file, nor the screen), a wrong one typed
// once. On libssh2 1.11.1 the same host logs in through sshelf's own client and the same assertions hold. Real sshd,
// a real sudo, the RSA key only in the vault.
import Foundation
import TestSupport
import XCTest

final class EveryKeyRunOptionsTests: XCTestCase {
    /// Host `rsa`, logging in with an RSA key imported into the vault and pinned; `newer`: libssh2 signs rsa-sha2.
    private func world() throws -> (BridgeWorld, server: SSHD, shared: String, newer: Bool) {
        let world = try BridgeWorld()
        let key = try TestKey.generate(.rsa)
        var options = SSHD.Options()
        options.authorizedKeys = [key.publicLine]
        let server = try SSHD.start(options)
        XCTAssertExit(try world.home.run("identity", "import", "rsa1", key.privatePath), 0)
        XCTAssertExit(
            try world.home.run(
                "add", "rsa", "--host", server.options.listenAddress, "--port", String(server.port),
                "--user", TestAccount.name, "--identity", "rsa1"), 0)
        XCTAssertExit(try world.home.run("trust", "rsa", "--fingerprint", try world.fingerprint(server)), 0)
        addTeardown { _ = try? world.home.run(["agent", "stop"]) }
        let shared = world.home.root + "/shared"
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        chmod(shared, 0o777)
        let newer = try world.home.run("version", "--verbose").stdout.contains("  yes RSA keys sign with rsa-sha2")
        return (world, server, shared, newer)
    }

    private func host(_ run: CLIResult) throws -> [String: Any] {
        try XCTUnwrap(
            try run.stdout.split(separator: "\n").map {
                try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }.first { $0["name"] as? String == "rsa" }, run.stdout)
    }

    func testLoginUserTerminalAndStreamCarryThroughOpenSSH() throws {
        let (world, server, _, newer) = try world()

        let root = try world.home.run("run", "rsa", "-l", "root", "--json", "--", "id -un")
        XCTAssertExit(root, 0)
        XCTAssertEqual(try host(root)["stdout"] as? String, "root\n", root.stdout)
        XCTAssertEqual(try host(root)["openssh"] != nil, !newer, root.stdout)
        XCTAssertTrue(server.log.contains("Accepted publickey for root"), server.log)
        let again = try world.home.run("run", "rsa", "--json", "--", "id -un")
        XCTAssertEqual(try host(again)["stdout"] as? String, "\(TestAccount.name)\n", "-l was for that run only")

        let command = "if [ -t 0 ]; then echo terminal; else echo none; fi"
        let plain = try world.home.run("run", "rsa", "--json", "--", command)
        XCTAssertEqual(try host(plain)["stdout"] as? String, "none\n", plain.stdout)
        let tty = try world.home.run("run", "rsa", "-t", "--json", "--", command)
        XCTAssertExit(tty, 0)
        // A terminal ends lines with CR LF; nothing of ssh's own ("Connection to … closed.") is added.
        XCTAssertEqual(try host(tty)["stdout"] as? String, "terminal\r\n", tty.stdout)
        XCTAssertEqual(try host(tty)["stderr"] as? String ?? "", "", tty.stdout)

        let stream = try world.home.run(
            "run", "rsa", "--stream", "--",
            "for i in 1 2 3; do echo line-$i; done; printf 'no newline'; echo oops >&2")
        XCTAssertExit(stream, 0)
        // The lines as they came, then the host's status line (the report has no grouped copy of the output).
        let lines = stream.stdout.split(separator: "\n").map(String.init).filter { $0.hasPrefix("rsa: ") }
        XCTAssertEqual(
            lines.dropLast(), ["rsa: line-1", "rsa: line-2", "rsa: line-3", "rsa: no newline"], stream.stdout)
        XCTAssertTrue(lines.last?.hasPrefix("rsa: exit 0") == true, stream.stdout)
        XCTAssertEqual(lines.last?.contains("through OpenSSH") == true, !newer, stream.stdout)
        XCTAssertTrue(stream.stderr.contains("rsa: oops\n"), stream.stderr)
    }

    /// `--sudo` at a terminal: the password asked once, typed into the real sudo's marked prompt through ssh's input
    /// (a pipe), and found nowhere — ssh's and sshelf's arguments and environments, the home's files, the screen.
    func testSudoThroughOpenSSHTypesThePasswordOnlyIntoSudosPrompt() throws {
        try ensureSudoers()
        let (world, server, shared, newer) = try world()
        let screen = try SudoFlow.passwordTypedOnlyIntoSudosPrompt(
            home: world.home, target: "rsa", hosts: 1, shared: shared, sshd: server
        ) { sshelf in
            newer ? [] : [try XCTUnwrap(SudoFlow.child(of: sshelf, named: "ssh"), "OpenSSH's ssh")]
        }
        XCTAssertEqual(screen.contains(#""openssh":"#), !newer, screen)
    }

    /// A wrong password is typed once: sudo's second prompt gets Ctrl-C, ssh is stopped, and the host fails with why.
    func testAWrongSudoPasswordThroughOpenSSHIsTypedOnce() throws {
        try ensureSudoers()
        let (world, server, _, newer) = try world()
        let (run, host) = try SudoFlow.wrongPasswordTypedOnce(home: world.home, host: "rsa")
        XCTAssertEqual(host["openssh"] != nil, !newer, run.stdout)
        XCTAssertTrue(server.log.contains("Accepted publickey"), "logged in before sudo asked: \(server.log)")
    }
}
