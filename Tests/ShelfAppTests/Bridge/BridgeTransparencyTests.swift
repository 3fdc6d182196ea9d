// BridgeTransparencyTests: the bridge's transparency rule through the real binary and the real ssh. Over generated
// configs and real-style ones (hosts in both files, forwards in other words, SendEnv, ProxyCommand jumps, patterns):
// import → install → `ssh -G` of every name says what it said before install, apart from the lines the bridge adds
// (agent, key copies, pins); a second import after install changes nothing; import → export → import is a fixed
// point. `check` names a host and the option where the two disagree. And a real sshd: a host in both files with a
// LocalForward forwards its port once.
import Foundation
import ShelfCore
import TestSupport
import XCTest

final class BridgeTransparencyTests: XCTestCase {
    /// Configs as people write them (the shapes of the real-config corpus: one host under several names, forwards
    /// without a bind address, SendEnv and IdentityFile under `Host *`, a jump written as ProxyCommand, socket
    /// forwards).
    static let realStyle: [String] = [
        """
        # ~/.ssh/config of a developer
        Host github.com
            User git
            IdentityFile ~/.ssh/id_ed25519
            IdentitiesOnly yes

        Host bastion jump
            HostName 203.0.113.10
            User admin
            Port 2222
            ForwardAgent yes

        Host web1 web1.prod
            HostName 10.0.0.11
            User deploy
            LocalForward 18080 localhost:80
            LocalForward 127.0.0.1:18443 localhost:443
            RemoteForward 52698 localhost:52698
            SendEnv EDITOR

        Host db1
            HostName 10.0.0.12
            ProxyCommand ssh -W %h:%p bastion
            LocalForward 15432 localhost:5432

        Host docker
            HostName 10.0.0.13
            LocalForward 5555 /var/run/docker.sock
            DynamicForward 1080

        Host internal-*
            ProxyJump bastion
            User ops

        # matches web1 and not its other name: the two are two hosts, not one with an alias
        Host web?
            SendEnv WEBVAR

        Host internal-a
            HostName 10.1.0.1

        Host *
            SendEnv LANG LC_*
            ServerAliveInterval 60
            ServerAliveCountMax 3
            IdentityFile ~/.ssh/id_rsa
            AddKeysToAgent yes
            ControlMaster auto
            ControlPath ~/.ssh/cm-%r@%h:%p
            ControlPersist 10m
        """,
        """
        Host *
            User fallback
            LocalForward 19000 localhost:9000
            SendEnv TZ

        Host pi
            HostName 192.168.1.50
            User pi
            Port 2200
            DynamicForward 127.0.0.1:9050

        Host nas nas.local
            HostName 192.168.1.2
            IdentityFile ~/.ssh/nas_key
            IdentityFile ~/.ssh/id_ed25519
            StrictHostKeyChecking no
            UserKnownHostsFile /dev/null

        Host nas*
            ServerAliveInterval 25

        # a second `Host *` after another pattern: its first values come after that pattern's
        Host *
            ServerAliveInterval 52
            Compression yes
        """,
    ]

    /// A config of `blocks` hosts from `seed` with what doubles or shadows in ssh when defined twice: forwards in
    /// OpenSSH's short spelling, SendEnv and IdentityFile on hosts and under `Host *`, ProxyCommand jumps.
    static func generate(seed: UInt64, blocks: Int) -> String {
        var random = SplitMix64(state: seed)
        var text = "# generated, seed \(seed)\n"
        if seed % 2 == 1 {
            // A `Host *` first: its values come before every host's own, its forwards and SendEnv first in the lists.
            text +=
                "Host *\n    SendEnv TOP\n    LocalForward 25000 localhost:1\n    IdentityFile ~/.ssh/id_top\n"
                + "    SetEnv TOP=1\n"
        }
        for block in 0..<blocks {
            let names = (0..<(1 + random.below(2))).map { "t\(block)\(["a", "b"][$0])" }
            text += "\nHost \(names.joined(separator: " "))\n    HostName 10.9.\(block / 200).\(block % 200 + 1)\n"
            if random.below(2) == 0 { text += "    User \(random.pick(["deploy", "ops"]))\n" }
            if random.below(2) == 0 { text += "    LocalForward \(21_000 + block) localhost:\(80 + random.below(5))\n" }
            if random.below(3) == 0 { text += "    RemoteForward \(22_000 + block) localhost:22\n" }
            if random.below(3) == 0 { text += "    DynamicForward \(23_000 + block)\n" }
            if random.below(3) == 0 { text += "    SendEnv VAR\(random.below(3))\n" }
            if random.below(3) == 0 { text += "    SetEnv OWN\(block)=1\n" }
            if random.below(3) == 0 { text += "    IdentityFile ~/.ssh/id_\(random.below(3))\n" }
            if block > 0, random.below(4) == 0 { text += "    ProxyCommand ssh -W %h:%p t\(random.below(block))a\n" }
        }
        text += """

            Host t1* !t1b
                Port 2345
                LocalForward 24999 localhost:9999
                SendEnv PATTERNVAR
                ServerAliveInterval 25
            Host *
                SendEnv LANG LC_*
                IdentityFile ~/.ssh/id_default
                ServerAliveInterval 52

            """
        return text
    }

    /// Every literal name of the config's Host lines.
    static func names(_ config: String) -> [String] {
        var names: [String] = []
        for line in config.split(separator: "\n") {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard words.first?.lowercased() == "host" else { continue }
            for word in words.dropFirst()
            where !word.contains(where: { "*?!".contains($0) }) && !names.contains(String(word)) {
                names.append(String(word))
            }
        }
        return names
    }

    /// What the bridge is there to add: the agent, its key copies, the pins.
    static let bridgeKeys: Set<String> = [
        "identityagent", "identitiesonly", "userknownhostsfile", "globalknownhostsfile",
        "stricthostkeychecking", "updatehostkeys",
    ]

    /// `ssh -G` of `name` in `file`, the bridge's own lines left out, in ssh's order.
    func resolved(_ file: String, _ name: String, home: TempHome) throws -> [String] {
        let out = try Shell.run(TestTool.ssh.path, ["-F", file, "-G", name])
        return out.split(separator: "\n").map(String.init).filter { line in
            let key = String(line.prefix { $0 != " " })
            return !Self.bridgeKeys.contains(key) && !line.hasPrefix("identityfile \(home.sshelfHome)/config/keys/")
        }
    }

    /// Imports `config` as the user's ~/.ssh/config, installs the bridge, and checks every name.
    func assertTransparent(_ config: String, _ label: String) throws {
        let home = TempHome()
        let userConfig = try home.write(config, to: ".ssh/config")
        let original = try home.write(config, to: "original-config")
        XCTAssertExit(try home.run("import", "ssh-config"), 0)
        XCTAssertExit(try home.run("ssh-config", "install"), 0)
        XCTAssertTrue(try String(contentsOfFile: userConfig, encoding: .utf8).hasPrefix("Include "), label)
        let bridge = (try? String(contentsOfFile: home.sshelfHome + "/config/ssh_config", encoding: .utf8)) ?? ""
        for name in Self.names(config) {
            XCTAssertEqual(
                try resolved(userConfig, name, home: home), try resolved(original, name, home: home),
                "\(label): \(name)\n\(config)\n\(bridge)")
        }
        // Importing again after install changes nothing in the store, and check finds nothing.
        let before = try home.run("export", "ssh-config").stdout
        let again = try home.run("import", "ssh-config")
        XCTAssertTrue(again.stdout.contains(" 0 added, 0 updated, "), "\(label): \(again.stdout)")
        XCTAssertEqual(try home.run("export", "ssh-config").stdout, before, label)
        let check = try home.run("check")
        XCTAssertFalse(check.stdout.contains("ssh reads it differently"), "\(label): \(check.stdout)")
        // Import → export → import is a fixed point.
        let other = TempHome()
        XCTAssertExit(try other.run("import", "ssh-config", try other.write(before, to: "exported")), 0)
        XCTAssertEqual(try other.run("export", "ssh-config").stdout, before, label)
    }

    func testInstallLeavesSshGOfEveryRealStyleHostAsItWas() throws {
        for (index, config) in Self.realStyle.enumerated() {
            try assertTransparent(config, "real-style config \(index)")
        }
    }

    func testInstallLeavesSshGOfEveryGeneratedHostAsItWas() throws {
        for seed in [11, 12, 13] as [UInt64] {
            try assertTransparent(Self.generate(seed: seed, blocks: 12), "seed \(seed)")
        }
        try assertTransparent(ConfigRoundTripTests.generate(seed: 4, blocks: 10).text, "round-trip generator, seed 4")
    }

    func testCheckNamesTheHostAndOptionWhereTheBridgeChangesWhatSshReads() throws {
        let home = TempHome()
        _ = try home.write(
            """
            Host web1
                HostName 10.0.0.11
                User alice
                LocalForward 18080 localhost:80
            Host other
                HostName 10.0.0.12
            """, to: ".ssh/config")
        XCTAssertExit(try home.run("import", "ssh-config"), 0)
        XCTAssertExit(try home.run("ssh-config", "install"), 0)
        XCTAssertExit(try home.run("check"), 0)
        // ~/.ssh/config changed after the bridge was written: a host of sshelf's is now in that file too, with a user
        // of its own. The bridge written before gives sshelf's user first: check names it; --fix writes the bridge
        // anew for the file as it is (which then yields to the file), and the re-import brings sshelf's copy in step.
        XCTAssertExit(try home.run("add", "late", "--host", "10.0.0.13", "--user", "carol"), 0)
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: home.home + "/.ssh/config"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("\nHost late\n    HostName 10.0.0.13\n    User dave\n".utf8))
        try handle.close()
        let stale = try home.run("check")
        XCTAssertExit(stale, 4)
        XCTAssertTrue(
            stale.stdout.contains(
                "host 'late': ssh reads it differently with the ssh_config bridge than from \(home.home)/.ssh/config "
                    + "alone: user carol (without the bridge: dave)"),
            stale.stdout)
        XCTAssertTrue(stale.stdout.contains("fix: sshelf check --fix writes the bridge anew"), stale.stdout)
        XCTAssertTrue(
            stale.stdout.contains("\(home.home)/.ssh/config changed since sshelf last imported it"), stale.stdout)
        XCTAssertExit(try home.run("check", "--fix"), 4)
        let fixed = try home.run("check")
        XCTAssertFalse(fixed.stdout.contains("ssh reads it differently"), fixed.stdout)
        XCTAssertTrue(
            fixed.stdout.contains(
                "host 'late': ssh takes its settings from \(home.home)/.ssh/config, which says user dave (sshelf: "
                    + "carol)"),
            fixed.stdout)
        XCTAssertExit(try home.run("import", "ssh-config"), 0)
        XCTAssertExit(try home.run("check"), 0)
        // Changed in sshelf and not in ~/.ssh/config: the file decides what ssh uses, and check says sshelf's copy
        // differs (its own connect uses it).
        XCTAssertExit(try home.run("edit", "web1", "--user", "bob"), 0)
        let check = try home.run("check")
        XCTAssertExit(check, 4)
        XCTAssertTrue(
            check.stdout.contains(
                "host 'web1': ssh takes its settings from \(home.home)/.ssh/config, which says user alice (sshelf: "
                    + "bob)"),
            check.stdout)
        XCTAssertFalse(check.stdout.contains("'other'"), check.stdout)
        let json = try home.run("check", "--json")
        XCTAssertTrue(
            json.stdout.contains("\"kind\" : \"bridgeDisagrees\"")
                || json.stdout.contains("\"kind\":\"bridgeDisagrees\""), json.stdout)
        // A forward added in sshelf is sshelf's to run: ssh never sees it; the file's own forward stays.
        XCTAssertExit(try home.run("edit", "web1", "--user", "alice"), 0)
        XCTAssertExit(try home.run("forward", "add", "web1", "--local", "18081:localhost:81"), 0)
        XCTAssertExit(try home.run("check"), 0)
        let resolved = try Shell.run(TestTool.ssh.path, ["-F", home.home + "/.ssh/config", "-G", "web1"])
        XCTAssertEqual(
            resolved.split(separator: "\n").filter { $0.hasPrefix("localforward ") },
            ["localforward 18080 [localhost]:80"],
            resolved)
        XCTAssertExit(try home.run("ssh-config", "uninstall"), 0)
        XCTAssertExit(try home.run("check"), 0)
    }

    /// A host imported from ~/.ssh/config and still in it, with a LocalForward: after install, OpenSSH's ssh to it
    /// binds the port once (a second bind of the same port would fail it, ExitOnForwardFailure) and the forward works.
    func testAHostInBothFilesForwardsItsPortOnce() throws {
        let key = try TestKey.generate(.ed25519)
        var options = SSHD.Options()
        options.authorizedKeys = [key.publicLine]
        let server = try SSHD.start(options)
        let target = try ReverseServer()
        let port = try TrafficSocket.freePort()
        let home = TempHome()
        try TestAccount.ensure()
        let userConfig = try home.write(
            """
            Host fwd
                HostName 127.0.0.1
                Port \(server.port)
                User \(TestAccount.name)
                IdentityFile \(key.privatePath)
                LocalForward \(port) 127.0.0.1:\(target.port)
            """, to: ".ssh/config")
        XCTAssertExit(try home.run("import", "ssh-config"), 0)
        XCTAssertExit(try home.run("ssh-config", "install"), 0)
        let resolved = try Shell.run(TestTool.ssh.path, ["-F", userConfig, "-G", "fwd"])
        XCTAssertEqual(
            resolved.split(separator: "\n").filter { $0.hasPrefix("localforward ") },
            ["localforward \(port) [127.0.0.1]:\(target.port)"],
            resolved)

        let ssh = Process()
        ssh.executableURL = TestTool.ssh.url
        ssh.arguments = [
            "-F", userConfig, "-N", "-o", "BatchMode=yes", "-o", "ExitOnForwardFailure=yes",
            "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "fwd",
        ]
        var environment = home.environment
        environment["SSH_AUTH_SOCK"] = nil
        ssh.environment = environment
        let errors = Pipe()
        ssh.standardError = errors
        ssh.standardOutput = FileHandle.nullDevice
        ssh.standardInput = FileHandle.nullDevice
        try ssh.run()
        defer { if ssh.isRunning { ssh.terminate() } }
        let payload = Payload.random(4096)
        // Until the forward answers — or ssh gives up (a second bind of the port fails it).
        let forwarded = waitUntil(deadline: Deadline.long) {
            !ssh.isRunning || (try? TrafficSocket.roundTrip(port: port, payload)) == Array(payload.reversed())
        }
        XCTAssertTrue(forwarded && ssh.isRunning, "ssh stopped or the forward never answered")
        ssh.terminate()
        ssh.waitUntilExit()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertFalse(stderr.contains("Address already in use"), stderr)
        XCTAssertFalse(stderr.contains("Could not request local forwarding"), stderr)
    }
}
