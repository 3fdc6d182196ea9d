// OneKeyOneIdentityTests: a key sshelf has already is never a second identity — `identity import` of it under
// another name links to the identity holding it (which keeps the stricter agent options), an existing identity cannot
// take it, ssh_config import finds it by its key — and the agent serves one entry per key with the stricter options
// even when two identities hold it (as sync brings two devices' imports together), so `--confirm` cannot be skipped
// through the laxer name. OpenSSH's ssh-add and `ssh-keygen -Y sign` against the real agent.
import Foundation
import ShelfCore
import ShelfStore
import TestSupport
import XCTest

final class OneKeyOneIdentityTests: XCTestCase {
    /// `ssh-keygen -Y sign` of a small file with the key whose public half is `publicKey`, through the agent.
    func signThroughTheAgent(_ world: AgentWorld, publicKey: String) throws -> CLIResult {
        let pub = try world.home.write(publicKey + "\n", to: "signer-\(UUID().uuidString.prefix(6)).pub")
        let data = try world.home.write("data to sign\n", to: "data-\(UUID().uuidString.prefix(6)).txt")
        return try world.tool(TestTool.sshKeygen.path, ["-Y", "sign", "-f", pub, "-n", "file", data])
    }

    func testImportingAKeyTwiceLinksToTheFirstIdentityAndConfirmationCannotBeSkipped() throws {
        let world = try AgentWorld()
        let key = try TestKey.generate(.ed25519)
        XCTAssertExit(try world.home.run(["identity", "import", "aa-plain", key.privatePath]), 0)
        let second = try world.home.run(["identity", "import", "zz-c", key.privatePath, "--confirm"])
        XCTAssertExit(second, 0)
        XCTAssertTrue(second.stdout.contains("is identity 'aa-plain''s already: 'zz-c' is linked to it"), second.stdout)
        XCTAssertTrue(second.stdout.contains("agent options: confirm each use"), second.stdout)
        XCTAssertTrue(second.stdout.contains("sshelf identity edit aa-plain --rename zz-c"), second.stdout)

        let identities = try world.identities()
        XCTAssertEqual(identities.map { $0["name"] as? String }, ["aa-plain"], "one key, one identity")
        XCTAssertEqual(identities.first?["confirmEachUse"] as? Bool, true, "the stricter option of the two")
        XCTAssertEqual(try world.vaultItems().filter { $0["family"] as? String == "identity.privkey" }.count, 1)

        // The background agent has nobody to ask: the signature is refused, whatever name the key was imported under.
        try world.startAgent()
        let listed = try world.sshAdd(["-l"])
        XCTAssertExit(listed, 0)
        XCTAssertEqual(listed.stdout.split(separator: "\n").count, 1, listed.stdout)
        let signed = try signThroughTheAgent(world, publicKey: key.publicLine)
        XCTAssertNotEqual(signed.status, 0, "\(signed)")
        try world.waitForAgentLog("nobody can confirm")
        XCTAssertFalse(world.agentLog.contains("signed with key"), world.agentLog)
        XCTAssertEqual(try world.releases().count, 0)
    }

    func testTheStricterOptionsWinWhicheverImportComesFirst() throws {
        let home = TempHome()
        home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1", "SSHELF_TEST_WEAK_KDF": "1"]
        let key = try TestKey.generate(.ecdsa)
        XCTAssertExit(
            try home.run(["identity", "import", "strict", key.privatePath, "--confirm", "--lifetime", "600"]), 0)
        XCTAssertExit(try home.run(["identity", "import", "lax", key.privatePath, "--lifetime", "3600"]), 0)
        let listed = try home.run(["identity", "list", "--json"])
        let identities = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(identities.count, 1)
        XCTAssertEqual(identities.first?["name"] as? String, "strict")
        XCTAssertEqual(identities.first?["confirmEachUse"] as? Bool, true)
        XCTAssertEqual(identities.first?["agentLifetime"] as? Int, 600, "the shorter lifetime")

        // An identity of its own cannot take a key another identity holds: refused, nothing changed.
        let own = try home.run(["keygen", "own"])
        XCTAssertExit(own, 0)
        let taken = try home.run(["identity", "import", "own", key.privatePath])
        XCTAssertEqual(taken.status, 4, "\(taken)")
        XCTAssertTrue(taken.stderr.contains("is identity 'strict''s already; one key has one identity"), taken.stderr)
        XCTAssertTrue(taken.stderr.contains("sshelf identity rm strict"), taken.stderr)
        XCTAssertEqual(try home.run(["identity", "show", "own"]).stdout, own.stdout, "'own' keeps its key")

        // ssh_config import of the same key file finds the identity by its key (the .pub beside the file).
        let config = try home.write(
            "Host db\n  HostName db.example\n  IdentityFile \(key.privatePath)\n", to: "ssh-config")
        XCTAssertExit(try home.run(["import", "ssh-config", config]), 0)
        let shown = try home.run(["show", "db"])
        XCTAssertTrue(shown.stdout.contains("strict"), shown.stdout)
        XCTAssertEqual(try home.run(["identity", "list", "--names"]).stdout, "own\nstrict\n")
    }

    /// The TUI's identity form, given the public key of an identity that exists: linked to it, with a note.
    func testTheTUIFormLinksAKnownPublicKeyToItsIdentity() throws {
        let home = TempHome()
        home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1", "SSHELF_TEST_WEAK_KDF": "1"]
        let made = try home.run(["keygen", "work"])
        XCTAssertExit(made, 0)
        let tui = try Tmux(home: home, columns: 250)
        try tui.waitFor(text: "All hosts")
        try tui.send("i")
        try tui.waitFor(text: "Add identity")
        try tui.type("laptop")
        try tui.send("Tab", "Tab", "Tab")
        try tui.type(made.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        try tui.send("Tab", "Space")  // confirm each use
        try tui.send("Enter")
        try tui.waitFor(text: "is identity 'work''s already: 'laptop' is linked to it")
        let listed = try home.run(["identity", "list", "--json"])
        let identities = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(identities.map { $0["name"] as? String }, ["work"])
        XCTAssertEqual(identities.first?["confirmEachUse"] as? Bool, true)
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }

    /// Two identities holding one key — what sync makes of two devices that imported the key under two names (here
    /// the second record is written the way a sync run writes one, into the store). The agent lists the key once and
    /// asks before each use, as the stricter of the two says.
    func testTheAgentServesOneEntryPerKeyWithTheStricterOptions() throws {
        let world = try AgentWorld()
        let key = try TestKey.generate(.ed25519)
        let storePath = world.home.sshelfHome + "/data/store.sqlite"
        XCTAssertExit(try world.home.run(["identity", "import", "aa-plain", key.privatePath]), 0)
        // Hide aa-plain's key from the import (its record names another key for a moment; its vault item stays),
        // import the key again as zz-c, then give aa-plain its key back.
        let plain = try XCTUnwrap(try Store(path: storePath).identities().first)
        var elsewhere = plain
        elsewhere.publicKey = try TestKey.generate(.ed25519).publicLine
        try Store(path: storePath).write { try $0.save(elsewhere) }
        XCTAssertExit(try world.home.run(["identity", "import", "zz-c", key.privatePath, "--confirm"]), 0)
        try Store(path: storePath).write { try $0.save(plain) }
        XCTAssertEqual(try world.identities().count, 2)
        XCTAssertEqual(try world.vaultItems().filter { $0["family"] as? String == "identity.privkey" }.count, 2)

        try world.startAgent()
        let listed = try world.sshAdd(["-l"])
        XCTAssertExit(listed, 0)
        XCTAssertEqual(listed.stdout.split(separator: "\n").count, 1, "one entry per key:\n\(listed.stdout)")
        let signed = try signThroughTheAgent(world, publicKey: key.publicLine)
        XCTAssertNotEqual(signed.status, 0, "\(signed)")
        try world.waitForAgentLog("nobody can confirm")
        XCTAssertEqual(try world.releases().count, 0)

        // Without the stricter option anywhere, the same key signs: the refusal above was the confirmation's.
        XCTAssertExit(try world.home.run(["identity", "edit", "zz-c", "--no-confirm"]), 0)
        XCTAssertExit(try signThroughTheAgent(world, publicKey: key.publicLine), 0)
        XCTAssertEqual(try world.releases().count, 1)
    }
}
