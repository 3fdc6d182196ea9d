// VaultTerminalTests: secrets typed at a real terminal (tmux) are not echoed — the pane shows the prompts,
// never the passphrase — and the typed passphrase is the one the vault then accepts.
import Foundation
import TestSupport
import XCTest

final class VaultTerminalTests: XCTestCase {
    func testPassphraseIsNotEchoed() throws {
        let home = TempHome()
        home.extraEnvironment = ["SSHELF_TEST_WEAK_KDF": "1", "SSHELF_VAULT_NO_KEYRING": "1"]
        let tmux = try Tmux(home: home, arguments: ["vault", "passwd"], columns: 120, rows: 30)
        let typed = "typed-Secret-4821"
        try tmux.waitFor(text: "New vault passphrase:")
        try tmux.enter(typed)
        try tmux.waitFor(text: "Repeat the new passphrase:")
        try tmux.enter(typed)
        XCTAssertEqual(try tmux.waitForExit(), 0, (try? tmux.screen()) ?? "")
        // Checked on every frame the wait reads, not only the last.
        try tmux.waitFor("passphrase set") { pane in
            XCTAssertFalse(pane.contains(typed), "the passphrase was echoed:\n\(pane)")
            return pane.contains("passphrase set")
        }
        XCTAssertExit(try home.run(["vault", "unlock", "--passphrase-fd", "0"], stdin: typed + "\n"), 0)
    }
}
