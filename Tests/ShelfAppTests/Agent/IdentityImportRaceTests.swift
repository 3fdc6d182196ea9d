// IdentityImportRaceTests: one import of a private key, whichever way it comes in — `identity import` and the agent's
// ssh-add run the same operation (ShelfOperations' IdentityImport) and leave the same identity; and two processes
// importing one key at once leave one identity and one vault copy of it, because the check for an identity holding
// the key and the write are one store transaction. Real processes (the CLI, the agent, OpenSSH's ssh-add) on a real
// store: the test holds the store's write lock while both start, so both have read before either can write.
import Foundation
import ShelfCore
import ShelfStore
import TestSupport
import XCTest

final class IdentityImportRaceTests: XCTestCase {
    /// An identity as `identity list --json` prints it, without what differs by nature between two homes.
    func comparable(_ identity: [String: Any]) -> [String: String] {
        var fields: [String: String] = [:]
        for (key, value) in identity where !["id", "updatedAt", "privateKeyRef"].contains(key) {
            fields[key] = "\(value)"
        }
        return fields
    }

    func privateKeyClasses(_ world: AgentWorld) throws -> [String] {
        try world.vaultItems().filter { $0["family"] as? String == "identity.privkey" }
            .compactMap { $0["accessibility"] as? String ?? $0["class"] as? String }
    }

    func testTheAgentAndTheCommandLineImportAKeyAlike() throws {
        let key = try TestKey.generate(.ed25519)
        let agent = try AgentWorld()
        try agent.startAgent()
        XCTAssertExit(try agent.sshAdd(["-c", key.privatePath]), 0)
        try agent.waitForAgentLog("stored a new identity")
        let added = try agent.identities()
        XCTAssertEqual(added.count, 1)
        let name = try XCTUnwrap(added.first?["name"] as? String)

        let cli = AgentWorld(over: TempHome(), sshd: agent.sshd)
        cli.home.extraEnvironment = agent.home.extraEnvironment
        XCTAssertExit(try cli.home.run(["identity", "import", name, key.privatePath, "--confirm"]), 0)
        let imported = try cli.identities()
        XCTAssertEqual(imported.count, 1)
        XCTAssertEqual(imported.map(comparable), added.map(comparable), "the same record either way")
        XCTAssertEqual(try privateKeyClasses(cli), try privateKeyClasses(agent), "the same class either way")
        XCTAssertEqual(try privateKeyClasses(agent), ["whenUnlockedThisDeviceOnly"], "a new key is device-only")
    }

    func testTwoProcessesImportingOneKeyAtOnceMakeOneIdentity() throws {
        let key = try TestKey.generate(.ed25519)
        let world = try AgentWorld()
        XCTAssertExit(try world.home.run(["list"]), 0)  // the store exists before the test holds its lock
        try world.startAgent()
        let storePath = world.home.sshelfHome + "/data/store.sqlite"

        // The test holds the store's write lock (BEGIN IMMEDIATE) until both importers wait for it.
        let holding = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let holder = Thread {
            _ = try? Store(path: storePath).write { _ in
                holding.signal()
                release.wait()
            }
        }
        holder.start()
        holding.wait()

        final class Results: @unchecked Sendable { var cli: CLIResult?, agent: CLIResult? }
        let results = Results()
        let group = DispatchGroup()
        let keyFile = key.privatePath
        DispatchQueue.global().async(group: group) {
            results.cli = try? world.home.run(["identity", "import", "work", keyFile])
        }
        DispatchQueue.global().async(group: group) {
            results.agent = try? world.sshAdd([keyFile])
        }
        // Both sshelf processes of this home (the CLI and the agent) sleeping in SQLite's busy wait: each has read
        // what it reads before writing. Not a failure when it is not seen (a slow start): the lock is let go anyway.
        // Within SQLite busy timeout (15 s) whatever the deadline scale.
        _ = waitUntil(deadline: 10 / Deadline.scale) { Self.waitingForTheLock(home: world.home.sshelfHome) >= 2 }
        release.signal()
        group.wait()

        XCTAssertExit(try XCTUnwrap(results.cli), 0)
        XCTAssertExit(try XCTUnwrap(results.agent), 0)
        let identities = try world.identities()
        XCTAssertEqual(identities.count, 1, "one key, one identity: \(identities.map { $0["name"] ?? "" })")
        XCTAssertEqual(try privateKeyClasses(world).count, 1, "one copy of the key in the vault")
        XCTAssertExit(try world.sshAdd(["-l"]), 0)
    }

    /// How many sshelf processes of `home` have a thread asleep in nanosleep (SQLite's busy handler sleeps so while
    /// another connection holds the write lock).
    static func waitingForTheLock(home: String) -> Int {
        let marker = "SSHELF_HOME=\(home)\0"
        var count = 0
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] where Int(entry) != nil {
            guard let environ = FileManager.default.contents(atPath: "/proc/\(entry)/environ"),
                String(decoding: environ, as: UTF8.self).contains(marker),
                let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(entry)/exe"),
                exe.hasSuffix("/sshelf")
            else { continue }
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(entry)/task")) ?? []
            let asleep = tasks.contains { task in
                guard let text = try? String(contentsOfFile: "/proc/\(entry)/task/\(task)/syscall", encoding: .utf8)
                else { return false }
                let number = text.split(separator: " ").first.map(String.init)
                return number == "35" || number == "230"  // nanosleep, clock_nanosleep (x86_64)
            }
            if asleep { count += 1 }
        }
        return count
    }
}
