// VaultTerminalTests: secrets typed at a real terminal (tmux) are not echoed — the pane shows the prompts,
// never the passphrase — and the typed passphrase is the one the vault then accepts.
import Foundation
import TestSupport
import XCTest

final class VaultTerminalTests: XCTestCase {
    /// Runs tmux with posix_spawn and waitpid: Foundation's Process never sees the tmux client exit when the
    /// server it forks inherits the client's descriptors. Output goes to a file, read only for capture-pane.
    func tmux(_ socket: String, _ arguments: [String]) throws -> String {
        let outputPath = NSTemporaryDirectory() + "sshelf-tmux-\(UUID().uuidString)"
        defer { unlink(outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ["/usr/bin/tmux", "-L", socket, "-f", "/dev/null"] + arguments
        var cArguments = argv.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, argv[0], &actions, nil, &cArguments, environ)
        XCTAssertEqual(rc, 0, "posix_spawn tmux")
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    }

    /// Polls the pane until `text` shows up (bounded by attempts, not by a clock assertion).
    func waitFor(_ text: String, socket: String, attempts: Int = 200) throws -> String {
        var pane = ""
        for _ in 0..<attempts {
            pane = try tmux(socket, ["capture-pane", "-p", "-t", "vault"])
            if pane.contains(text) { return pane }
            usleep(50_000)
        }
        XCTFail("never saw '\(text)' in the pane:\n\(pane)")
        return pane
    }

    func testPassphraseIsNotEchoed() throws {
        let home = TempHome()
        home.extraEnvironment = ["SSHELF_TEST_WEAK_KDF": "1", "SSHELF_VAULT_NO_KEYRING": "1"]
        let socket = "sshelf-vault-\(UUID().uuidString.prefix(8))"
        defer { _ = try? tmux(socket, ["kill-server"]) }
        var arguments = ["new-session", "-d", "-s", "vault", "-x", "120", "-y", "30"]
        for (name, value) in home.environment { arguments += ["-e", "\(name)=\(value)"] }
        arguments += ["\(CLI.binary) vault passwd; echo EXIT=$?; sleep 30"]
        _ = try tmux(socket, arguments)
        let typed = "typed-Secret-4821"
        _ = try waitFor("New vault passphrase:", socket: socket)
        _ = try tmux(socket, ["send-keys", "-t", "vault", "-l", typed])
        _ = try tmux(socket, ["send-keys", "-t", "vault", "Enter"])
        _ = try waitFor("Repeat the new passphrase:", socket: socket)
        _ = try tmux(socket, ["send-keys", "-t", "vault", "-l", typed])
        _ = try tmux(socket, ["send-keys", "-t", "vault", "Enter"])
        let pane = try waitFor("EXIT=", socket: socket)
        XCTAssertTrue(pane.contains("passphrase set"), pane)
        XCTAssertTrue(pane.contains("EXIT=0"), pane)
        XCTAssertFalse(pane.contains(typed), "the passphrase was echoed:\n\(pane)")
        XCTAssertExit(try home.run(["vault", "unlock", "--passphrase-fd", "0"], stdin: typed + "\n"), 0)
    }
}
