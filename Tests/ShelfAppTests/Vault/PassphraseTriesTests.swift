// PassphraseTriesTests: the one passphrase rule `vault unlock`, the TUI and a connect follow — three tries, the
// agent's back-off (1 s, then 2 s) waited before each try after a wrong one, nothing waited when nothing more is
// typed — on a recorded wait (no sleeping), and `vault unlock` through the real binary taking its tries from the
// descriptor's next lines.
import Foundation
import ShelfOperations
import ShelfSystem
import ShelfVault
import TestSupport
import XCTest

@testable import ShelfServices

final class PassphraseTriesTests: XCTestCase {
    func text(_ secret: SecretBytes) -> String { secret.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }

    /// Runs the rule over `typed` (nil: the user leaves), the right passphrase being "right".
    func run(_ typed: [String?]) -> (PassphraseTries.Outcome, questions: [String], waits: [Duration]) {
        var questions: [String] = [], waits: [Duration] = []
        var left = typed[...]
        let outcome = PassphraseTries.tries(
            question: "Vault passphrase",
            ask: { question in
                questions.append(question)
                return left.popFirst().flatMap { $0.map { SecretBytes(Array($0.utf8)) } }
            },
            wait: { waits.append($0) },
            check: { passphrase throws(VaultError) in
                if self.text(passphrase) != "right" { throw VaultError(.wrongPassphrase, "not correct") }
            })
        return (outcome, questions, waits)
    }

    func testThreeTriesWithTheAgentsBackOffBetween() {
        let first = run(["right"])
        XCTAssertEqual(first.0, .unlocked)
        XCTAssertEqual(first.waits, [])
        let third = run(["a", "b", "right"])
        XCTAssertEqual(third.0, .unlocked)
        XCTAssertEqual(third.waits, [.seconds(1), .seconds(2)])
        XCTAssertEqual(
            third.questions,
            [
                "Vault passphrase:", "Wrong passphrase (try 2 of 3). Vault passphrase:",
                "Wrong passphrase (try 3 of 3). Vault passphrase:",
            ])
        // The agent waits the same after as many wrong answers: one rule.
        XCTAssertEqual(third.waits, [UnlockBackoff.delay(afterFailures: 1), UnlockBackoff.delay(afterFailures: 2)])
        let wrong = run(["a", "b", "c", "right"])
        XCTAssertEqual(wrong.0, .wrongPassphrase(VaultError(.wrongPassphrase, "not correct")))
        XCTAssertEqual(wrong.questions.count, PassphraseTries.count)
        // Leaving after a wrong one waits for nothing, and says the last answer was wrong.
        let left = run(["a", nil])
        XCTAssertEqual(left.0, .cancelled(afterWrong: VaultError(.wrongPassphrase, "not correct")))
        XCTAssertEqual(left.waits, [])
        XCTAssertEqual(run([nil]).0, .cancelled(afterWrong: nil))
    }

    /// `vault unlock` takes the TUI's three tries; from a descriptor, its next lines are the next tries.
    func testVaultUnlockTakesThreeTries() throws {
        let home = TempHome()
        home.extraEnvironment = ["SSHELF_TEST_WEAK_KDF": "1", "SSHELF_VAULT_NO_KEYRING": "1"]
        XCTAssertExit(try home.run(["vault", "init"]), 0)
        XCTAssertExit(try home.run(["vault", "passwd", "--passphrase-fd", "0"], stdin: "right\n"), 0)
        XCTAssertExit(try home.run(["vault", "unlock", "--passphrase-fd", "0"], stdin: "typo\nright\n"), 0)
        XCTAssertExit(try home.run(["vault", "unlock", "--passphrase-fd", "0"], stdin: "a\nb\nright\n"), 0)
        let fourth = try home.run(["vault", "unlock", "--passphrase-fd", "0"], stdin: "a\nb\nc\nright\n")
        XCTAssertExit(fourth, 1)
        XCTAssertTrue(fourth.stderr.contains("the vault passphrase is not correct"), fourth.stderr)
        let once = try home.run(["vault", "unlock", "--passphrase-fd", "0"], stdin: "typo\n")
        XCTAssertExit(once, 1)
        XCTAssertTrue(once.stderr.contains("the vault passphrase is not correct"), once.stderr)
    }
}
