// RunCommandTests: `sshelf run` end to end against real sshd — a group with a host that never answers, a host whose
// key changed (skipped, nothing sent), the canary stop, the confirmation refused without --yes, Ctrl-C once and
// twice, the command timeout, grouped output, --json, and the release-log entry that `log verify` covers.
import Foundation
import TestSupport
import XCTest

final class RunCommandTests: XCTestCase {
    func testAGroupWithOneHostDownReportsTheTimeoutAndRunsTheRest() throws {
        let world = try FleetWorld(["a", "b"])
        let silent = try SilentListener()
        XCTAssertExit(
            try world.home.run(
                "add", "down", "--host", "127.0.0.1", "--port", String(silent.port),
                "--user", TestAccount.name, "--group", "prod/eu"), 0)
        // Long enough for the real hosts on a loaded machine; the silent one takes this long to be given up.
        let timeout = String(Int(Deadline.scaled(4)))
        let result = try world.home.run("run", "@prod", "--timeout", timeout, "--", "echo hi")
        XCTAssertExit(result, 255)
        XCTAssertTrue(result.stdout.contains("---------------\na,b (2)\n---------------\nhi\n"), result.stdout)
        // Hosts that ended alike share one status line (the times as a span).
        XCTAssertTrue(result.stdout.contains("a,b (2): exit 0 ("), result.stdout)
        let down = try XCTUnwrap(result.stdout.split(separator: "\n").first { $0.hasPrefix("down: ") }, result.stdout)
        XCTAssertTrue(down.hasPrefix("down: unreachable") && down.contains("tim"), String(down))
        XCTAssertTrue(result.stdout.contains("3 hosts: 2 succeeded, 1 unreachable"), result.stdout)
        XCTAssertFalse(result.stderr.contains("running"), "no progress line off a terminal: \(result.stderr)")
    }

    /// Targets combine (a group with its subgroups, a tag, a search, a hosts file), each host once, in the order first
    /// named; a target that names nothing is an error (a bare word that is a group, a tag or a search word says how
    /// to type it as one), and more than ten hosts need a confirmation.
    func testTargetsCombineAndResolveOnce() throws {
        let home = TempHome()
        for (name, group, tag) in [
            ("db-fra", "prod/eu", "db"), ("web-fra", "prod", "web"), ("db-nyc", "staging", "db"),
            ("mail", "", "mx"),
        ] {
            XCTAssertExit(
                try home.run(
                    ["add", name, "--host", "\(name).example.com", "--tag", tag]
                        + (group.isEmpty ? [] : ["--group", group])), 0)
        }
        let file = try home.write("# from the inventory\nmail\n\nweb-fra  # again\n", to: "hosts.txt")
        let plan = try home.run("run", "@prod", "tag:db", "db fra", "--hosts-file", file, "--dry-run", "--", "uptime")
        XCTAssertExit(plan, 0)
        let planned = plan.stdout.split(separator: "\n").filter { $0.hasPrefix("plan for ") }
            .map { String($0.dropFirst(9).prefix { $0 != " " }) }
        XCTAssertEqual(planned, ["db-fra", "web-fra", "db-nyc", "mail"], plan.stdout)
        XCTAssertTrue(plan.stdout.contains("command \(FleetWorld.sha256("uptime"))"), plan.stdout)
        // Who a target reaches can be checked before there is a command; a real run still needs one.
        let hostsOnly = try home.run("run", "@prod", "tag:db", "--dry-run")
        XCTAssertExit(hostsOnly, 0)
        XCTAssertTrue(hostsOnly.stdout.hasSuffix("3 hosts, no command given\n"), hostsOnly.stdout)
        XCTAssertExit(try home.run("run", "@prod", "tag:db"), 2)

        let typo = try home.run("run", "@prod", "tag:dbb", "--dry-run", "--", "uptime")
        XCTAssertExit(typo, 3)
        XCTAssertTrue(typo.stderr.contains("no host has the tag 'dbb'"), typo.stderr)
        XCTAssertExit(try home.run("run", "@nope", "--", "uptime"), 3)
        XCTAssertExit(try home.run("run", "zzz qqq", "--", "uptime"), 3)
        // A bare word that names no host: what it names as another kind of target is the hint.
        for (word, hint) in [
            ("prod", "hint: 'prod' is a group: @prod stands for its 2 hosts"),
            ("db", "hint: 'db' is a tag: tag:db stands for the 2 hosts with it"),
            ("fra", "hint: a search for it is q:fra (2 hosts: db-fra, web-fra)"),
            ("zzz", "hint: see 'sshelf list'"),
        ] {
            let bare = try home.run("run", word, "--dry-run")
            XCTAssertExit(bare, 3)
            XCTAssertTrue(bare.stderr.contains("no host named '\(word)'\nsshelf: \(hint)\n"), bare.stderr)
        }

        for index in 1...8 {
            XCTAssertExit(try home.run("add", "n\(index)", "--host", "n\(index).example.com", "--group", "prod"), 0)
        }
        let large = try home.run("run", "@prod", "tag:db", "--dry-run", "--", "uptime")
        XCTAssertTrue(
            large.stdout.contains("would ask for confirmation: it reaches 11 hosts (more than 10)"), large.stdout)
        let refused = try home.run("run", "@prod", "tag:db", "--", "uptime")
        XCTAssertExit(refused, 2)
        XCTAssertTrue(refused.stderr.contains("needs a confirmation"), refused.stderr)
    }

    func testAHostWithAChangedKeyIsSkippedAndNothingIsSentToIt() throws {
        let world = try FleetWorld(["a"])
        let impostor = try world.cli.impostorForT()
        // Both log in with a key held in the vault, so every release of it is in the release log.
        world.home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1"]
        let made = try world.home.run("keygen", "fleet-key")
        XCTAssertExit(made, 0)
        try world.sshd.authorize(made.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        for name in ["a", "t"] {
            XCTAssertExit(try world.home.run("edit", name, "--identity", "fleet-key", "--auth", "publickey"), 0)
        }
        let result = try world.home.run("run", "a", "t", "--accept-new", "--json", "--", "echo ran")
        XCTAssertExit(result, 255)
        let hosts = try FleetWorld.jsonLines(result.stdout)
        XCTAssertEqual(hosts["a"]?["outcome"] as? String, "succeeded", result.stdout)
        XCTAssertEqual(hosts["t"]?["outcome"] as? String, "host-key-refused", result.stdout)
        XCTAssertTrue((hosts["t"]?["error"] as? String ?? "").lowercased().contains("changed"), result.stdout)
        XCTAssertEqual(hosts["t"]?["stdout"] as? String, "", result.stdout)
        XCTAssertTrue(impostor.waitForConnectionsEnded(), impostor.log)
        XCTAssertFalse(impostor.log.contains("userauth-request"), impostor.log)
        XCTAssertFalse(impostor.log.contains("Accepted"), impostor.log)
        // No credential was released for t: the vault's private key went to a only.
        let log = try world.home.run("log", "--json")
        let releases = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]])
        let released = releases.filter { $0["by"] as? String == "run" && $0["what"] as? String == "private key" }
        XCTAssertEqual(released.compactMap { $0["host"] as? String }, ["a"], log.stdout)
    }

    func testACanaryThatFailsStopsTheRun() throws {
        let world = try FleetWorld(["a", "b", "c"])
        let accepted = world.sshd.logCount("Accepted publickey")
        let result = try world.home.run("run", "a", "b", "c", "--canary", "1", "--json", "--", "exit 3")
        XCTAssertExit(result, 1)
        let hosts = try FleetWorld.jsonLines(result.stdout)
        XCTAssertEqual(hosts["a"]?["outcome"] as? String, "failed", result.stdout)
        XCTAssertEqual(hosts["a"]?["exitStatus"] as? Int, 3, result.stdout)
        XCTAssertEqual(hosts["b"]?["outcome"] as? String, "not-started", result.stdout)
        XCTAssertEqual(hosts["c"]?["outcome"] as? String, "not-started", result.stdout)
        XCTAssertTrue(world.sshd.waitForConnectionsEnded(), world.sshd.log)
        XCTAssertEqual(world.sshd.logCount("Accepted publickey"), accepted + 1, "only the canary logged in")

        let passing = try world.home.run("run", "a", "b", "c", "--canary", "1", "--", "true")
        XCTAssertExit(passing, 0)
        XCTAssertTrue(passing.stdout.contains("3 hosts: 3 succeeded"), passing.stdout)
    }

    func testAProtectedHostNeedsAConfirmationThatAScriptGivesWithYes() throws {
        let world = try FleetWorld(["a", "b"])
        XCTAssertExit(try world.home.run("edit", "b", "--tag", "protected"), 0)
        let dryRun = try world.home.run("run", "@prod", "--dry-run", "--", "true")
        XCTAssertExit(dryRun, 0)
        XCTAssertTrue(dryRun.stdout.contains("plan for a"), dryRun.stdout)
        XCTAssertTrue(
            dryRun.stdout.contains("would ask for confirmation: a host is tagged protected (b)"), dryRun.stdout)

        let refused = try world.home.run("run", "@prod", "--", "touch \(world.shared)/ran-$$")
        XCTAssertExit(refused, 2)
        XCTAssertTrue(refused.stderr.contains("needs a confirmation"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("--yes"), refused.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: world.shared), [], "nothing ran")
        XCTAssertFalse(world.sshd.log.contains("Accepted publickey"), world.sshd.log)

        let confirmed = try world.home.run("run", "@prod", "--yes", "--", "touch \(world.shared)/ran-$$")
        XCTAssertExit(confirmed, 0)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: world.shared).count, 2)
    }

    /// The hosts of one output are folded as clush -b prints them (web-[1-2]).
    func testIdenticalOutputsAreGroupedAndJSONKeepsStreamsApart() throws {
        let world = try FleetWorld(["web-1", "web-2"])
        let other = try world.secondServer(["web-3"])
        let command = "echo port ${SSH_CONNECTION##* }; echo oops >&2; exit 2"
        let result = try world.home.run("run", "@prod", "--", command)
        XCTAssertExit(result, 1)
        XCTAssertTrue(
            result.stdout.contains("web-[1-2] (2)\n---------------\nport \(world.sshd.port)\n--- stderr\noops\n"),
            result.stdout)
        XCTAssertTrue(
            result.stdout.contains("web-3 (1)\n---------------\nport \(other.port)\n--- stderr\noops\n"), result.stdout)
        XCTAssertTrue(result.stdout.contains("web-[1-3] (3): exit 2 ("), result.stdout)

        let json = try world.home.run("run", "@prod", "--json", "--", command)
        XCTAssertExit(json, 1)
        let hosts = try FleetWorld.jsonLines(json.stdout)
        XCTAssertEqual(Set(hosts.keys), ["web-1", "web-2", "web-3"])
        let c = try XCTUnwrap(hosts["web-3"])
        XCTAssertEqual(c["stdout"] as? String, "port \(other.port)\n")
        XCTAssertEqual(c["stderr"] as? String, "oops\n")
        XCTAssertEqual(c["exitStatus"] as? Int, 2)
        XCTAssertEqual(c["outcome"] as? String, "failed")
        XCTAssertNotNil(c["started"] as? String)
        XCTAssertNotNil(c["finished"] as? String)
        XCTAssertEqual(c["fingerprint"] as? String, try world.cli.fingerprint(other))
    }

    func testEachRunIsOneReleaseLogEntryThatVerifies() throws {
        let world = try FleetWorld(["a", "b"])
        let command = "echo logged"
        XCTAssertExit(try world.home.run("run", "a", "b", "--", command), 0)
        XCTAssertTrue(
            try world.home.run("show", "b", "--json").stdout.contains("lastConnectedAt"), "a run counts as a connection"
        )
        let entries = try world.runEntries()
        XCTAssertEqual(entries.count, 1)
        let entry = try XCTUnwrap(entries.first)
        XCTAssertEqual(entry["item"] as? String, FleetWorld.sha256(command))
        XCTAssertEqual(entry["host"] as? String, "a,b")
        let fingerprint = try world.cli.fingerprint(world.sshd)
        let detail = entry["detail"] as? String ?? ""
        XCTAssertTrue(detail.contains("a \(fingerprint) succeeded=0"), detail)
        XCTAssertTrue(detail.contains("b \(fingerprint) succeeded=0"), detail)
        XCTAssertFalse(detail.contains(command), "the command itself is never logged: \(detail)")
        let verify = try world.home.run("log", "verify")
        XCTAssertExit(verify, 0)
        XCTAssertTrue(verify.stdout.contains("intact"), verify.stdout)
    }

    func testAHostWithAWarmSessionRunsOnItWithoutANewLogin() throws {
        let world = try FleetWorld(["a", "b"])
        defer { _ = try? world.home.run("warm", "stop") }
        XCTAssertExit(try world.home.run("exec", "a", "--persist", "--persist-for", "120", "-n", "--", "true"), 0)
        XCTAssertTrue(world.sshd.waitForLog("Accepted publickey", count: 1), world.sshd.log)
        let result = try world.home.run("run", "a", "b", "--json", "--", "echo hi")
        XCTAssertExit(result, 0)
        let hosts = try FleetWorld.jsonLines(result.stdout)
        XCTAssertEqual(hosts["a"]?["warm"] as? Bool, true, result.stdout)
        XCTAssertEqual(hosts["a"]?["stdout"] as? String, "hi\n", result.stdout)
        XCTAssertEqual(hosts["a"]?["fingerprint"] as? String, try world.cli.fingerprint(world.sshd), result.stdout)
        XCTAssertEqual(hosts["b"]?["warm"] as? Bool, false, result.stdout)
        XCTAssertTrue(world.sshd.waitForLog("Accepted publickey", count: 2), world.sshd.log)
        XCTAssertEqual(world.sshd.logCount("Accepted publickey"), 2, "the warm host ran without a login of its own")
    }

    func testACommandPastItsTimeoutIsCut() throws {
        let world = try FleetWorld(["a", "b"])
        let result = try world.home.run(
            "run", "a", "b", "--command-timeout", "1", "--",
            "echo started; [ \"${SSH_CONNECTION##* }\" = never ] || exec sleep 600")
        XCTAssertExit(result, 255)
        XCTAssertTrue(result.stdout.contains("a,b (2): timed out"), result.stdout)
        // What a cut host printed before it hung is kept: often the clue to why.
        XCTAssertTrue(result.stdout.contains("started"), result.stdout)
    }

    /// Through a warm session too: the keeper runs the command, and the timeout counts from when it took it.
    func testACommandPastItsTimeoutIsCutOnAWarmSession() throws {
        let world = try FleetWorld(["a"])
        defer { _ = try? world.home.run("warm", "stop") }
        XCTAssertExit(try world.home.run("exec", "a", "--persist", "--persist-for", "120", "-n", "--", "true"), 0)
        let result = try world.home.run(
            "run", "a", "--command-timeout", "1", "--json", "--", "echo started; exec sleep 600")
        XCTAssertExit(result, 255)
        let hosts = try FleetWorld.jsonLines(result.stdout)
        XCTAssertEqual(hosts["a"]?["warm"] as? Bool, true, result.stdout)
        XCTAssertEqual(hosts["a"]?["outcome"] as? String, "timed-out", result.stdout)
        XCTAssertEqual(hosts["a"]?["stdout"] as? String, "started\n", result.stdout)
    }

    /// --parallel 1, the first host waits for a file: Ctrl-C then leaves b and c unstarted and lets a finish.
    func testCtrlCStopsStartingHostsAndLetsRunningOnesEnd() throws {
        let world = try FleetWorld(["a", "b", "c"])
        let go = world.shared + "/go"
        let run = try BackgroundSshelf(
            world.home,
            [
                "run", "a", "b", "c", "--parallel", "1", "--",
                "touch \(world.shared)/started-$$; while [ ! -e \(go) ]"
                    + " && [ -d \(world.shared) ]; do sleep 0.05; done; echo finished",
            ])
        defer { _ = FileManager.default.createFile(atPath: go, contents: nil) }
        try eventually("the first host started", context: { run.stderr }) {
            (try? FileManager.default.contentsOfDirectory(atPath: world.shared))?.contains { $0.hasPrefix("started-") }
                == true
        }
        run.interrupt()
        try eventually("sshelf said it stops", context: { run.stderr }) {
            run.stderr.contains("stopping: no more hosts start")
        }
        _ = FileManager.default.createFile(atPath: go, contents: nil)
        XCTAssertEqual(run.process.wait(), 1, run.stdout + run.stderr)
        XCTAssertTrue(run.stdout.contains("a (1)\n---------------\nfinished\n"), run.stdout)
        XCTAssertTrue(run.stdout.contains("a: exit 0"), run.stdout)
        XCTAssertTrue(run.stdout.contains("b,c (2): not started"), run.stdout)
        XCTAssertTrue(run.stdout.contains("interrupted"), run.stdout)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: world.shared).filter { $0.hasPrefix("started-") }.count,
            1)
        XCTAssertEqual(try world.runEntries().count, 1, "an interrupted run is logged too")
    }

    func testASecondCtrlCStopsTheRunningHosts() throws {
        let world = try FleetWorld(["a", "b"])
        let go = world.shared + "/go"
        let run = try BackgroundSshelf(
            world.home,
            [
                "run", "a", "b", "--json", "--",
                "touch \(world.shared)/started-$$; while [ ! -e \(go) ] && [ -d \(world.shared) ]; do sleep 0.05; done",
            ])
        defer { _ = FileManager.default.createFile(atPath: go, contents: nil) }
        try eventually("both hosts started", context: { run.stderr }) {
            (try? FileManager.default.contentsOfDirectory(atPath: world.shared))?.filter { $0.hasPrefix("started-") }
                .count == 2
        }
        run.interrupt()
        try eventually("sshelf said it stops", context: { run.stderr }) {
            run.stderr.contains("stopping: no more hosts start")
        }
        run.interrupt()
        XCTAssertEqual(run.process.wait(), 1, run.stdout + run.stderr)
        let hosts = try FleetWorld.jsonLines(run.stdout)
        XCTAssertEqual(hosts["a"]?["outcome"] as? String, "killed", run.stdout)
        XCTAssertEqual(hosts["b"]?["outcome"] as? String, "killed", run.stdout)
    }
}
