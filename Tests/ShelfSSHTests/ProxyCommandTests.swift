// ProxyCommandTests: the ProxyCommand transport in sshelf's own client — libssh2 over the stdin/stdout of
// `nc %h %p` and of socat, through the same hop routine (the host key verified before the key is looked up), the
// child reaped when the connection closes, and a command that fails shown with what it wrote to stderr. Also how a
// host's algorithm lists resolve against what libssh2 has.
import Foundation
import ShelfCore
@testable import ShelfSSH
import TestSupport
import XCTest

final class ProxyCommandTests: XCTestCase {
    override func setUpWithError() throws { try TestAccount.ensure() }

    func proxied(_ command: String, world: SSHWorld, key: TestKey, sshd: SSHD) -> SSHEndpoint {
        var hop = world.endpoint(sshd, identity: world.vaultIdentity(key, type: .ed25519), pinned: world.pin(sshd))
        hop.hostname = "127.0.0.1"
        hop.settings = HostSettings.read(["ProxyCommand \(command)"].sshOptions)
        return hop
    }

    func children(named name: String) -> [pid_t] {
        ProcessTree.children(of: getpid()).filter { ProcessTree.name(of: $0) == name }
    }

    func testLoginsRunOverNcAndSocatAndTheChildIsReaped() throws {
        let key = try TestKey.generate(.ed25519)
        var options = SSHD.Options()
        options.authorizedKeys = [key.publicLine]
        let sshd = try SSHD.start(options)
        for (command, program) in [
            ("\(TestTool.nc.path) %h %p", "nc"), ("\(TestTool.socat.path) - TCP:%h:%p", "socat"),
        ] {
            let world = SSHWorld()
            let connection = try world.connector.connect([proxied(command, world: world, key: key, sshd: sshd)])
            XCTAssertFalse(children(named: program).isEmpty, "\(program) carries the session")
            let (status, out, _) = try SSHWorld.run(connection, "echo over \(program)")
            XCTAssertEqual(status, .status(0))
            XCTAssertEqual(String(decoding: out, as: UTF8.self), "over \(program)\n")
            XCTAssertEqual(
                world.journal.entries.filter { $0.hasPrefix("verified") || $0.hasPrefix("lookup") }.first,
                "verified target", "the host key first, then the credential")
            connection.close()
            // Closed means hung up on and reaped: no child of ours is left, not even a zombie.
            XCTAssertEqual(children(named: program), [], "\(program) was reaped")
        }
        XCTAssertTrue(sshd.waitForLog("Accepted publickey", count: 2), sshd.log)
    }

    func testAFailingCommandIsShownWithItsStderr() throws {
        let world = SSHWorld()
        let key = try TestKey.generate(.ed25519)
        let sshd = try SSHD.start()
        let hop = proxied(
            "sh -c 'echo no route to %h, port %p, user %r, %n and 100%% sure >&2; exit 3'",
            world: world, key: key, sshd: sshd)
        XCTAssertThrowsError(try world.connector.connect([hop])) { error in
            let message = (error as? SSHError)?.message ?? "\(error)"
            XCTAssertTrue(message.contains("exited with status 3"), message)
            XCTAssertTrue(
                message.contains(
                    "no route to 127.0.0.1, port \(sshd.port), user \(TestAccount.name), target and 100% sure"),
                message)
        }
        XCTAssertTrue(world.journal.entries.filter { $0.hasPrefix("lookup") }.isEmpty, "no credential was read")
        XCTAssertEqual(children(named: "sh"), [], "the command was reaped")
    }

    func testUnknownTokensAreRefusedBeforeAnythingRuns() {
        let hop = SSHEndpoint(name: "t", hostname: "h", port: 22, user: "u")
        XCTAssertEqual(try ProxyCommandTransport.expand("nc %h %p # %% %r %n", hop: hop), "nc h 22 # % u t")
        XCTAssertThrowsError(try ProxyCommandTransport.expand("nc %h %d", hop: hop)) {
            XCTAssertEqual(($0 as? SSHError)?.kind, .invalidConfiguration)
        }
    }

    /// What the shell makes of an expanded command: each token arrives as exactly its value, whatever quoting the
    /// command puts around it, and a value holding shell syntax never reaches the shell.
    func testTokensReachTheShellAsTheirValuesAndNothingElse() throws {
        let mark = NSTemporaryDirectory() + "proxy-token-\(UUID().uuidString)"
        let hop = SSHEndpoint(name: "web*", hostname: "fe80::1%eth0", port: 2222, user: "DOM\\svc$x")
        for command in [
            "printf '%%s|' %n %h %r %p", "printf '%%s|' \"%n\" \"%h\" \"%r\" \"%p\"",
            "printf '%%s|' '%n' '%h' '%r' '%p'",
        ] {
            let expanded = try ProxyCommandTransport.expand(command, hop: hop)
            let out = try Shell.run(TestTool.sh.path, ["-c", expanded])
            XCTAssertEqual(out, "web*|fe80::1%eth0|DOM\\svc$x|2222|", command)
        }
        for (field, payload) in [
            ("hostname", "$(touch${IFS}\(mark))"), ("user", "`touch \(mark)`"), ("name", "x;touch \(mark)"),
        ] {
            var bad = hop
            switch field {
            case "hostname": bad.hostname = payload
            case "user": bad.user = payload
            default: bad.name = payload
            }
            XCTAssertThrowsError(try ProxyCommandTransport.expand("nc %h %p %r %n", hop: bad), field) {
                XCTAssertEqual(($0 as? SSHError)?.kind, .invalidConfiguration)
                XCTAssertTrue("\($0)".contains("cannot put the \(field)"), "\($0)")
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: mark))
    }

    func testAlgorithmListsFollowOpenSSHsSyntax() throws {
        let defaults = ["a-ctr", "b-ctr", "c-cbc"], supported = ["a-ctr", "b-ctr", "c-cbc", "d-ctr"]
        XCTAssertEqual(
            try AlgorithmList.resolve(nil, option: "Ciphers", defaults: defaults, supported: supported), defaults)
        XCTAssertEqual(
            try AlgorithmList.resolve("d-ctr,x-gcm,a-ctr", option: "Ciphers", defaults: defaults, supported: supported),
            ["d-ctr", "a-ctr"])
        XCTAssertEqual(
            try AlgorithmList.resolve("+d-ctr", option: "Ciphers", defaults: defaults, supported: supported),
            ["a-ctr", "b-ctr", "c-cbc", "d-ctr"])
        XCTAssertEqual(
            try AlgorithmList.resolve("-*-cbc", option: "Ciphers", defaults: defaults, supported: supported),
            ["a-ctr", "b-ctr"])
        XCTAssertEqual(
            try AlgorithmList.resolve("^b-ctr,d-*", option: "Ciphers", defaults: defaults, supported: supported),
            ["b-ctr", "d-ctr", "a-ctr", "c-cbc"])
        XCTAssertThrowsError(
            try AlgorithmList.resolve(
                "chacha20-poly1305@openssh.com", option: "Ciphers", defaults: defaults,
                supported: supported)
        ) { error in
            XCTAssertEqual((error as? SSHError)?.kind, .invalidConfiguration)
            XCTAssertTrue(
                (error as? SSHError)?.message.contains("Ciphers chacha20-poly1305@openssh.com leaves nothing") == true)
        }
    }
}
