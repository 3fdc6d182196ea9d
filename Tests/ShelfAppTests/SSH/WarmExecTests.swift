// WarmExecTests: `exec --persist` and the warm-session keeper against a real sshd — later calls run without a new
// login (counted in the sshd log), exit status, stderr, stdin and 1 MB of binary stdout come through intact, a
// stale socket or a changed host record falls back to a normal connection, socket 0600 in a 0700 directory,
// another uid is refused, a session the server cut falls back, a caller killed mid-command releases the keeper,
// `warm stop` ends it and `--persist-for` is its idle time (WarmIdleTests: the idle timer on a clock the test moves).
import Foundation
import TestSupport
import XCTest

final class WarmExecTests: XCTestCase {
    private func hostID(_ world: SSHCLIWorld) throws -> String {
        let show = try world.home.run("show", "t", "--json")
        let object = try JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as? [String: Any]
        return try XCTUnwrap(object?["id"] as? String).lowercased()
    }

    private func socketPath(_ world: SSHCLIWorld) throws -> String {
        world.home.sshelfHome + "/run/warm/" + (try hostID(world)) + ".sock"
    }

    private func mode(_ path: String) -> Int? {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_mode & 0o7777) : nil
    }

    /// Waits until the keeper's socket `path` is gone (the keeper removes it as it exits).
    private func waitUntilGone(_ path: String, _ why: String, file: StaticString = #filePath, line: UInt = #line) throws
    {
        try eventually("\(why): \(path) removed", file: file, line: line) {
            !FileManager.default.fileExists(atPath: path)
        }
    }

    /// The host's last-connected time as `show --json` prints it.
    private func lastConnected(_ world: SSHCLIWorld) throws -> String {
        let show = try world.home.run("show", "t", "--json")
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as? [String: Any])
        return try XCTUnwrap(object["lastConnectedAt"] as? String)
    }

    /// A world whose host key is already pinned (one login), as `--persist`'s keeper never accepts a new key.
    private func pinnedWorld() throws -> SSHCLIWorld {
        let world = try SSHCLIWorld()
        XCTAssertExit(try world.home.run("exec", "t", "--accept-new", "-n", "--", "true"), 0)
        XCTAssertTrue(world.sshd.waitForLog("Accepted publickey", count: 1))
        return world
    }

    func testLaterExecRunsThroughTheKeeperWithoutANewLogin() throws {
        let world = try pinnedWorld()
        let path = try socketPath(world)
        defer { _ = try? world.home.run("warm", "stop") }

        let first = try world.home.run("exec", "t", "--persist", "--persist-for", "120", "-n", "--", "echo first")
        XCTAssertExit(first, 0)
        XCTAssertEqual(first.stdout, "first\n")
        XCTAssertEqual(first.stderr, "")
        XCTAssertTrue(world.sshd.waitForLog("Accepted publickey", count: 2), world.sshd.log)
        XCTAssertEqual(mode(path), 0o600)
        XCTAssertEqual(mode((path as NSString).deletingLastPathComponent), 0o700)

        let lastBefore = try lastConnected(world)
        let second = try world.home.run("exec", "t", "-n", "--", "echo out; echo err >&2; exit 3")
        XCTAssertExit(second, 3)
        XCTAssertGreaterThan(try lastConnected(world), lastBefore, "a warm exec counts as a connection")
        XCTAssertEqual(second.stdout, "out\n")
        XCTAssertEqual(second.stderr, "err\n")

        let input = try world.home.run(["exec", "t", "--", "wc -c"], stdin: "hello")
        XCTAssertExit(input, 0)
        XCTAssertEqual(input.stdout.trimmingCharacters(in: .whitespaces), "5\n")
        // Stdin /dev/null goes as -n does (no relay for it): the command still reads its end at once.
        let null = try world.home.run("exec", "t", "--", "wc -c")
        XCTAssertExit(null, 0)
        XCTAssertEqual(null.stdout.trimmingCharacters(in: .whitespaces), "0\n")

        // 1 MiB of incompressible bytes, compared by SHA-256 with the same bytes written locally.
        let file = world.home.root + "/blob"
        _ = try Shell.run(
            TestTool.sh.path,
            ["-c", "head -c 1048576 /dev/urandom > \(file); chmod 644 \(file); chmod 755 \(world.home.root)"])
        let expected = try Shell.run(TestTool.sh.path, ["-c", "sha256sum < \(file)"])
        let binary = try CLI.run(
            ["-c", "\"$0\" exec t -n -- cat \(file) | sha256sum", CLI.binary],
            environment: world.home.environment, shell: true)
        XCTAssertEqual(binary.stdout, expected)
        XCTAssertEqual(binary.stderr, "")

        // Five calls, one login: the keeper's (the first was the pinning call before it).
        XCTAssertEqual(world.sshd.logCount("Accepted publickey"), 2, world.sshd.log)

        let stop = try world.home.run("warm", "stop", "t")
        XCTAssertExit(stop, 0)
        XCTAssertEqual(stop.stdout, "stopped 1 warm session\n")
        try waitUntilGone(path, "the keeper exits")
        XCTAssertExit(try world.home.run("exec", "t", "-n", "--", "true"), 0)
        XCTAssertTrue(world.sshd.waitForLog("Accepted publickey", count: 3), world.sshd.log)
    }

    func testStaleSocketFallsBackToANormalConnection() throws {
        let world = try pinnedWorld()
        let path = try socketPath(world)
        // A socket nobody listens on any more: what a killed keeper leaves behind.
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true)
        _ = try Shell.run(
            TestTool.python3.path, ["-c", "import socket; socket.socket(socket.AF_UNIX).bind('\(path)')"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: path))

        let result = try world.home.run("exec", "t", "-n", "--", "echo direct")
        XCTAssertExit(result, 0)
        XCTAssertEqual(result.stdout, "direct\n")
        XCTAssertEqual(result.stderr, "")
        XCTAssertTrue(world.sshd.waitForLog("Accepted publickey", count: 2), world.sshd.log)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "the stale socket is removed")
    }

    func testAKeeperIsNotReusedAfterTheHostRecordChanged() throws {
        let world = try pinnedWorld()
        let path = try socketPath(world)
        defer { _ = try? world.home.run("warm", "stop") }
        XCTAssertExit(try world.home.run("exec", "t", "--persist", "-n", "--", "true"), 0)
        XCTAssertTrue(world.sshd.waitForLog("Accepted publickey", count: 2), world.sshd.log)

        // Same server, another spelling of its address: a record change the keeper did not log in with.
        XCTAssertExit(try world.home.run("edit", "t", "--host", "localhost"), 0)
        let result = try world.home.run("exec", "t", "-n", "--", "echo fresh")
        XCTAssertExit(result, 0)
        XCTAssertEqual(result.stdout, "fresh\n")
        XCTAssertTrue(world.sshd.waitForLog("Accepted publickey", count: 3), world.sshd.log)
        try waitUntilGone(path, "the outdated keeper exits")
    }

    /// A keeper that logs in with a vault key releases it once, for its login (a release-log line), and the calls it
    /// serves afterwards release nothing: it holds the session, not the key.
    func testTheKeepersLoginIsTheOnlyRelease() throws {
        let world = try pinnedWorld()
        defer { _ = try? world.home.run("warm", "stop") }
        world.home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1"]
        let made = try world.home.run("keygen", "vk")
        XCTAssertExit(made, 0)
        try world.sshd.authorize(made.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        XCTAssertExit(try world.home.run("edit", "t", "--identity", "vk", "--auth", "publickey"), 0)
        for command in ["echo one", "echo two", "echo three"] {
            XCTAssertExit(try world.home.run("exec", "t", "--persist", "-n", "--", command), 0)
        }
        XCTAssertTrue(world.sshd.waitForLog("Accepted publickey", count: 2), world.sshd.log)
        let logged = try JSONSerialization.jsonObject(with: Data(try world.home.run("log", "--json").stdout.utf8))
        let lines = (logged as? [[String: Any]]) ?? []
        XCTAssertEqual(lines.count, 1, "\(lines)")
        XCTAssertEqual(lines.first?["what"] as? String, "private key")
        XCTAssertEqual(lines.first?["by"] as? String, "exec")
        XCTAssertEqual(lines.first?["host"] as? String, "t")
    }

    /// `--persist-for` reaches the keeper as its idle time (when it ends is WarmIdleTests', on a clock the test moves,
    /// so nothing here waits for it to pass).
    func testPersistForIsTheKeepersIdleTime() throws {
        let world = try pinnedWorld()
        let path = try socketPath(world)
        let id = try hostID(world)
        XCTAssertExit(try world.home.run("exec", "t", "--persist", "--persist-for", "7", "-n", "--", "true"), 0)
        XCTAssertTrue(world.sshd.waitForLog("Accepted publickey", count: 2), world.sshd.log)
        let keepers = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap {
            pid -> [String]? in
            guard Int32(pid) != nil, let raw = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else {
                return nil
            }
            let argv = raw.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            return argv.contains { $0.lowercased() == id } && argv.contains("serve") ? argv : nil
        }
        XCTAssertEqual(keepers.count, 1, "\(keepers)")
        let argv = keepers.first ?? []
        XCTAssertEqual(argv.firstIndex(of: "--idle").map { argv[$0 + 1] }, "7", "\(argv)")
        XCTAssertExit(try world.home.run("warm", "stop"), 0)
        try waitUntilGone(path, "the keeper ends when stopped")
    }

    /// The keeper checks the caller's uid itself (SO_PEERCRED), not only through the 0700 directory: with the
    /// directory and socket opened up on purpose, a request from `nobody` is closed unanswered (a keeper without the
    /// check would answer this one: its fingerprint does not match) and runs nothing.
    func testAnotherUidIsRefused() throws {
        guard getuid() == 0 else { throw skipped("needs root to run a client as another user") }
        let world = try pinnedWorld()
        let path = try socketPath(world)
        defer { _ = try? world.home.run("warm", "stop") }
        XCTAssertExit(try world.home.run("exec", "t", "--persist", "-n", "--", "true"), 0)
        let marker = world.home.root + "/ran-by-nobody"
        for directory in [
            world.home.root, world.home.sshelfHome, world.home.sshelfHome + "/run",
            (path as NSString).deletingLastPathComponent,
        ] {
            chmod(directory, 0o755)
        }
        chmod(path, 0o666)
        // A well-formed exec frame (any fingerprint): a keeper without the uid check would at least answer.
        let script = """
            import socket, struct, sys
            s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
            body = bytes(32) + b'\\x00' + ('touch ' + sys.argv[2]).encode()
            data = b''
            try:
                s.sendall(b'X' + struct.pack('>I', len(body)) + body)
                s.settimeout(10)
                while True:
                    chunk = s.recv(4096)
                    if not chunk: break
                    data += chunk
            except (BrokenPipeError, ConnectionResetError):
                pass
            print(len(data))
            """
        let reply = try Shell.run(
            TestTool.setpriv.path,
            [
                "--reuid=65534", "--regid=65534", "--clear-groups",
                TestTool.python3.path, "-c", script, path, marker,
            ])
        XCTAssertEqual(reply.trimmingCharacters(in: .whitespacesAndNewlines), "0")
        XCTAssertFalse(FileManager.default.fileExists(atPath: marker))
        let ours = try world.home.run("exec", "t", "-n", "--", "echo still-ours")
        XCTAssertEqual(ours.stdout, "still-ours\n")
        XCTAssertEqual(world.sshd.logCount("Accepted publickey"), 2, world.sshd.log)
    }

    /// A caller killed while its command reads stdin (Ctrl-C on `exec t -- cat`) must not leave the keeper reading
    /// that stdin for ever: the keeper sees the hang-up, gives the command EOF, and serves the next call.
    func testACallerThatGoesAwayReleasesTheKeeper() throws {
        let world = try pinnedWorld()
        defer { _ = try? world.home.run("warm", "stop") }
        XCTAssertExit(try world.home.run("exec", "t", "--persist", "-n", "--", "true"), 0)
        let sleeperFile = world.home.root + "/sleeper", callerFile = world.home.root + "/caller"
        let started = world.sshd.logCount("Starting session")
        // A limit for the next call (below), for a hung keeper; not a timing assertion.
        let limit = Int(Deadline.scaled(Deadline.standard))
        // stdin is a pipe whose writer stays open: cat would never see EOF on its own. The writer is a `sleep`, part
        // of the scenario: it outlives the limit, so a keeper still reading this stdin would make the next call
        // fail. Spawned and reaped by pid: Foundation's Process would wait for the orphaned sleep.
        let pipeline = try SpawnedProcess(
            TestTool.sh.path,
            [
                "-c",
                """
                sh -c 'echo $$ > "$1"; exec sleep \(limit * 3)' sh "$1" | \
                sh -c 'echo $$ > "$1"; exec "$0" exec t -- cat' "$0" "$2"
                """, CLI.binary, sleeperFile, callerFile,
            ], environment: world.home.environment)
        defer { pipeline.stop() }
        XCTAssertTrue(world.sshd.waitForLog("Starting session", count: started + 1), world.sshd.log)
        func pid(_ path: String) throws -> Int32 {
            try eventually(
                "a pid in \(path)",
                observe: {
                    Int32(
                        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").trimmingCharacters(
                            in: .whitespacesAndNewlines))
                }, until: { $0 != nil }) ?? 0
        }
        let sleeper = try pid(sleeperFile)
        defer { kill(sleeper, SIGKILL) }
        XCTAssertEqual(kill(try pid(callerFile), SIGKILL), 0)

        let next = try CLI.run(
            ["-c", "timeout \(limit) \"$0\" exec t -n -- echo after", CLI.binary],
            environment: world.home.environment, shell: true)
        XCTAssertExit(next, 0)
        XCTAssertEqual(next.stdout, "after\n")
        XCTAssertEqual(world.sshd.logCount("Accepted publickey"), 2, world.sshd.log)
    }

    /// The keeper's session cut by the server (its sshd session processes killed; the listener stays up): the next
    /// exec gets "fall back" before anything ran, logs in on its own, and the dead keeper exits.
    func testADeadSessionFallsBackToANormalConnection() throws {
        let world = try pinnedWorld()
        let path = try socketPath(world)
        defer { _ = try? world.home.run("warm", "stop") }
        XCTAssertExit(try world.home.run("exec", "t", "--persist", "-n", "--", "true"), 0)
        XCTAssertTrue(world.sshd.waitForLog("Accepted publickey", count: 2), world.sshd.log)
        XCTAssertGreaterThan(try world.sshd.killSessions(), 0, "the keeper's session has sshd processes")

        let result = try world.home.run("exec", "t", "-n", "--", "echo back")
        XCTAssertExit(result, 0)
        XCTAssertEqual(result.stdout, "back\n")
        XCTAssertEqual(result.stderr, "")
        XCTAssertTrue(world.sshd.waitForLog("Accepted publickey", count: 3), world.sshd.log)
        try waitUntilGone(path, "the keeper whose session died exits")
    }
}
