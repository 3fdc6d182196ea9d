// BridgeWorld: a TempHome whose hosts live on real test sshds, logging in with a key that exists only in sshelf's
// vault (`keygen`), each host pinned with `sshelf trust`; and OpenSSH's own ssh, scp, rsync and git run the way a
// user runs them after `ssh-config install`. OpenSSH finds ~/.ssh/config through the password database, not $HOME,
// so these tools are pointed with -F at the very file `install` changed (the test home's ~/.ssh/config).
import Foundation
import TestSupport
import XCTest

final class BridgeWorld: @unchecked Sendable {
    let home = TempHome()
    var servers: [String: SSHD] = [:]
    private var agentStarted = false

    init() throws {
        try TestAccount.ensure()
        home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1", "SSHELF_TEST_WEAK_KDF": "1"]
        let made = try home.run("keygen", "vaultkey")
        XCTAssertExit(made, 0)
        vaultPublicKey = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    deinit { if agentStarted { _ = try? home.run(["agent", "stop"]) } }

    /// The public line of the vault identity every host logs in with.
    let vaultPublicKey: String

    var userConfig: String { home.home + "/.ssh/config" }
    var bridge: String { home.sshelfHome + "/config/ssh_config" }
    var pins: String { home.sshelfHome + "/config/ssh_known_hosts" }
    var agentSocket: String { home.sshelfHome + "/run/agent/socket" }

    /// A new sshd that accepts the vault key.
    func server(_ options: SSHD.Options = SSHD.Options()) throws -> SSHD {
        var options = options
        options.authorizedKeys.append(vaultPublicKey)
        return try SSHD.start(options)
    }

    /// `sshelf add NAME` for `server` (through `jump` when given), logging in with the vault key, and its host key
    /// pinned with `sshelf trust` (checked against the server's own fingerprint).
    func addHost(_ name: String, on server: SSHD, jump: [String] = [], options: [String] = []) throws {
        servers[name] = server
        var arguments = [
            "add", name, "--host", server.options.listenAddress, "--port", String(server.port),
            "--user", TestAccount.name, "--identity", "vaultkey",
        ]
        if !jump.isEmpty { arguments += ["--jump", jump.joined(separator: ",")] }
        for option in options { arguments += ["--option", option] }
        XCTAssertExit(try home.run(arguments), 0)
        XCTAssertExit(try home.run(["trust", name, "--fingerprint", try fingerprint(server)]), 0)
    }

    func fingerprint(_ server: SSHD) throws -> String {
        let out = try Shell.run(
            TestTool.sshKeygen.path, ["-l", "-E", "sha256", "-f", server.directory + "/ssh_host_ed25519_key.pub"])
        return String(out.split(separator: " ")[1])
    }

    func startAgent() throws {
        XCTAssertExit(try home.run(["agent", "start"]), 0)
        agentStarted = true
    }

    /// Runs an OpenSSH tool (or anything that runs ssh) in the test home, with no agent but the one the bridge names.
    func tool(_ path: String, _ arguments: [String], environment extra: [String: String] = [:]) throws -> CLIResult {
        var environment = home.environment
        environment["SSH_AUTH_SOCK"] = nil
        for (key, value) in extra { environment[key] = value }
        return try CLI.run(["-c", "exec \"$0\" \"$@\"", path] + arguments, environment: environment, shell: true)
    }

    /// `ssh` reading the user's config: no prompts, nothing but the bridge's settings.
    var sshCommand: String { "ssh -F \(userConfig) -o BatchMode=yes" }

    func ssh(_ arguments: [String]) throws -> CLIResult {
        try tool(TestTool.ssh.path, ["-F", userConfig, "-o", "BatchMode=yes"] + arguments)
    }

    func text(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : nil
    }
}
