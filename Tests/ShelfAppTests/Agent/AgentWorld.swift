// AgentWorld: a TempHome, a real sshd on loopback and the sshelf agent of that home — with OpenSSH's own ssh and
// ssh-add pointed at the agent's socket (`-F none`, no key files, no known_hosts), and what the agent wrote.
import Foundation
import ShelfCore
import TestSupport
import XCTest

final class AgentWorld: @unchecked Sendable {
    let home: TempHome
    var sshd: SSHD
    private var started = false

    init(options: SSHD.Options = SSHD.Options(), environment: [String: String] = [:]) throws {
        try TestAccount.ensure()
        home = TempHome()
        home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1", "SSHELF_TEST_WEAK_KDF": "1"].merging(environment) {
            $1
        }
        sshd = try SSHD.start(options)
    }

    /// The agent of a home and server another world set up.
    init(over home: TempHome, sshd: SSHD) {
        self.home = home
        self.sshd = sshd
    }

    deinit { if started { _ = try? home.run(["agent", "stop"]) } }

    var socket: String { home.sshelfHome + "/run/agent/socket" }
    var agentDirectory: String { home.sshelfHome + "/run/agent" }
    var agentLog: String { (try? String(contentsOfFile: home.sshelfHome + "/state/agent.log", encoding: .utf8)) ?? "" }

    /// Waits until the agent's log (agent.log) says `text`.
    func waitForAgentLog(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws {
        try eventually("'\(text)' in agent.log", file: file, line: line, context: { tail(self.agentLog) }) {
            self.agentLog.contains(text)
        }
    }

    func startAgent(
        _ extra: [String] = [], umask mask: mode_t? = nil, file: StaticString = #filePath,
        line: UInt = #line
    ) throws {
        let result = try home.run(["agent", "start"] + extra, umask: mask)
        XCTAssertEqual(result.status, 0, "\(result)", file: file, line: line)
        started = true
    }

    /// An OpenSSH tool (ssh, ssh-add, ssh-keygen) with the agent's socket and no other keys or configuration.
    func tool(
        _ path: String, _ arguments: [String], environment: [String: String] = [:], stdin: String? = nil
    ) throws -> CLIResult {
        var env = home.environment
        env["SSH_AUTH_SOCK"] = socket
        for (key, value) in environment { env[key] = value }
        return try CLI.run(["-c", "exec \"$0\" \"$@\"", path] + arguments, environment: env, stdin: stdin, shell: true)
    }

    /// `ssh … true` to the test sshd through the agent: public keys only, host key not checked (not under test here).
    func ssh(_ extra: [String] = [], command: String = "true") throws -> CLIResult {
        try tool(
            TestTool.ssh.path,
            [
                "-F", "none", "-o", "IdentityAgent=\(socket)", "-o", "IdentityFile=/nonexistent-sshelf-test",
                "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                "-o", "GlobalKnownHostsFile=/dev/null", "-o", "BatchMode=yes",
                "-o", "PreferredAuthentications=publickey", "-o", "LogLevel=ERROR",
                "-p", String(sshd.port),
            ] + extra + ["\(TestAccount.name)@\(sshd.options.listenAddress)", command])
    }

    func sshAdd(_ arguments: [String], environment: [String: String] = [:]) throws -> CLIResult {
        try tool(TestTool.sshAdd.path, arguments, environment: environment)
    }

    /// The release log as `sshelf log --json` prints it.
    func releases() throws -> [[String: Any]] {
        let result = try home.run(["log", "--json"])
        XCTAssertEqual(result.status, 0, "\(result)")
        return (try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]) ?? []
    }

    func identities() throws -> [[String: Any]] {
        let listed = try home.run(["identity", "list", "--json"])
        return (try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]]) ?? []
    }

    /// The vault's items (key, family, class) as `vault list --json` prints them.
    func vaultItems() throws -> [[String: Any]] {
        let listed = try home.run(["vault", "list", "--json"])
        return (try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]]) ?? []
    }

    /// The public key line of an identity, written to a .pub file (for `ssh-add -d FILE`).
    func publicKeyFile(_ identity: String) throws -> String {
        let line = try home.run(["identity", "show", identity]).stdout
        return try home.write(line, to: "\(identity.replacingOccurrences(of: " ", with: "-")).pub")
    }

    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : nil
    }
}

/// The private part of an OpenSSH key file written by ssh-keygen without a passphrase: the ed25519 seed or the
/// ECDSA scalar — what must never appear in any file sshelf writes.
func privateScalar(ofKeyFile path: String) throws -> [UInt8] {
    let (type, fields) = try OpenSSHKeyFile.privateFields(path: path)
    var reader = OpenSSHKeyFile.Bytes(fields)
    if type == "ssh-ed25519" {
        _ = try reader.string()  // public key
        return Array(try reader.string().prefix(32))  // seed ‖ public key
    }
    _ = try reader.string()  // curve
    _ = try reader.string()  // point
    return Array(try reader.string().drop { $0 == 0 })  // scalar
}
