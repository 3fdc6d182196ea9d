// AgentConfirmTests: a key marked --confirm is used only after someone says yes — on the terminal of a foreground
// agent (in real tmux), or in a running sshelf TUI for a background agent — and refused on no, on silence past the
// (injected, short) deadline, and at once when nobody can answer. A foreground agent also asks its terminal for the
// vault passphrase of a locked key. OpenSSH's ssh does the asking.
import Foundation
import TestSupport
import XCTest

final class AgentConfirmTests: XCTestCase {
    /// A world with one key marked --confirm, authorized on the server.
    func world() throws -> AgentWorld {
        let world = try AgentWorld()
        let made = try world.home.run(["keygen", "careful", "--confirm"])
        XCTAssertExit(made, 0)
        try world.sshd.authorize(made.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        return world
    }

    /// Runs ssh in the background; `wait()` returns its result.
    final class Pending: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private var result: CLIResult?

        init(_ world: AgentWorld) {
            DispatchQueue.global().async { [self] in
                result = try? world.ssh()
                done.signal()
            }
        }

        func wait() -> CLIResult? {
            guard done.wait(timeout: .now() + 60) == .success else { return nil }
            return result
        }
    }

    func foregroundAgent(_ world: AgentWorld, _ extra: [String] = []) throws -> Tmux {
        let tmux = try Tmux(home: world.home, arguments: ["agent"] + extra, columns: 250)
        try tmux.waitFor(text: "listening on")
        return tmux
    }

    func testTheForegroundAgentsTerminalAllowsAndRefuses() throws {
        let world = try world()
        let tmux = try foregroundAgent(world)

        let allowed = Pending(world)
        try tmux.waitFor(text: "sign with key 'careful'")
        try tmux.type("y")
        try tmux.send("Enter")
        XCTAssertEqual(allowed.wait()?.status, 0)
        XCTAssertTrue(world.sshd.waitForLog("Accepted publickey"), world.sshd.log)
        try tmux.waitFor(text: "allowed ssh")

        let refused = Pending(world)
        try tmux.waitFor("the second question") { $0.components(separatedBy: "sign with key 'careful'").count == 3 }
        try tmux.type("n")
        try tmux.send("Enter")
        XCTAssertNotEqual(refused.wait()?.status, 0)
        try tmux.waitFor(text: "answered no on the agent's terminal")
        XCTAssertEqual(try world.releases().count, 1, "only the allowed signature was released")
    }

    func testSilenceUntilTheDeadlineRefuses() throws {
        let world = try world()
        let tmux = try foregroundAgent(world, ["--confirm-timeout", "1"])
        let result = Pending(world).wait()
        XCTAssertNotEqual(result?.status, 0)
        try tmux.waitFor(text: "no answer within 1 s: refused")
        XCTAssertEqual(try world.releases().count, 0)
    }

    func testABackgroundAgentAsksTheTUIOrRefusesWhenNoneIsOpen() throws {
        let world = try world()
        try world.startAgent()
        XCTAssertNotEqual(try world.ssh().status, 0, "no TUI open: refused at once")
        try world.waitForAgentLog("nobody can confirm")

        let tui = try Tmux(home: world.home)
        try tui.waitFor(text: "All hosts")
        let allowed = Pending(world)
        try tui.waitFor(text: "sign with key 'careful'")
        try tui.send("y")
        XCTAssertEqual(allowed.wait()?.status, 0)
        try tui.waitFor(text: "allowed the signature")
        try world.waitForAgentLog("the sshelf TUI allowed ssh")

        let refused = Pending(world)
        try tui.waitFor("the dialog again") { $0.contains("sign with key 'careful'") }
        try tui.send("n")
        XCTAssertNotEqual(refused.wait()?.status, 0)
        try tui.waitFor(text: "refused the signature")
        XCTAssertEqual(try world.releases().count, 1)
    }

    func testTheTUIDialogClosesWhenTheAgentStopsWaiting() throws {
        let world = try world()
        try world.startAgent(["--confirm-timeout", "1"])
        let tui = try Tmux(home: world.home)
        try tui.waitFor(text: "All hosts")
        XCTAssertNotEqual(Pending(world).wait()?.status, 0)
        try tui.waitFor(text: "the agent stopped waiting")
        XCTAssertTrue(world.agentLog.contains("not answered within 1 s"), world.agentLog)
    }

    func testTheForegroundAgentAsksItsTerminalForTheVaultPassphrase() throws {
        let world = try AgentWorld()
        XCTAssertExit(try world.home.run(["vault", "passwd", "--passphrase-fd", "0"], stdin: "fg-pass\n"), 0)
        let made = try world.home.run(["keygen", "locked", "--passphrase-fd", "0"], stdin: "fg-pass\n")
        XCTAssertExit(made, 0)
        try world.sshd.authorize(made.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        let tmux = try foregroundAgent(world)
        let login = Pending(world)
        try tmux.waitFor(text: "Vault passphrase (key 'locked' for ssh")
        XCTAssertFalse(try tmux.screen().contains("fg-pass"), "nothing typed yet")
        try tmux.type("fg-pass")
        try tmux.send("Enter")
        XCTAssertEqual(login.wait()?.status, 0)
        XCTAssertFalse(try tmux.screen().contains("fg-pass"), "the passphrase is not echoed")
        // The agent keeps the vault open for whenUnlocked keys (until its idle timeout): the next login asks nothing.
        XCTAssertExit(try world.ssh(), 0)
        XCTAssertEqual(try tmux.screen().components(separatedBy: "Vault passphrase").count, 2, "asked once")
    }

    func testAnEncryptedKeyWithoutItsPassphraseIsAskedForInTheForegroundAndRefusedInTheBackground() throws {
        let world = try AgentWorld()
        let key = try TestKey.generate(.ed25519, passphrase: "file pass")
        try world.sshd.authorize(key.publicLine)
        // No passphrase given at import: the key stays encrypted in the vault, with nothing beside it.
        XCTAssertExit(
            try world.home.run(
                ["identity", "import", "enc", key.privatePath, "--key-passphrase-fd", "0"],
                stdin: "\n"), 0)
        try world.startAgent()
        XCTAssertNotEqual(try world.ssh().status, 0)
        try world.waitForAgentLog("its passphrase is not in the vault")
        XCTAssertExit(try world.home.run(["agent", "stop"]), 0)

        let tmux = try foregroundAgent(world)
        let login = Pending(world)
        try tmux.waitFor(text: "Passphrase of key 'enc'")
        try tmux.type("file pass")
        try tmux.send("Enter")
        XCTAssertEqual(login.wait()?.status, 0)
        XCTAssertTrue(world.sshd.waitForLog("Accepted publickey"), world.sshd.log)
    }
}
