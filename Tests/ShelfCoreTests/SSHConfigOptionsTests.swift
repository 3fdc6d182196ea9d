// Kept ssh_config options and the import fixes, in memory: options verbatim and in order per host, pattern blocks
// kept as defaults, a value a pattern block set first not kept on the host, a unix-socket forward skipped with the
// host kept, an unreadable Match line skipping only its block, notes for hosts a Match block may change, the
// `ProxyCommand ssh -W` form read as a jump, what the client reads from options, and the emitter writing them back.
import Foundation
import ShelfCore
import XCTest

final class SSHConfigOptionsTests: XCTestCase {
    func resolve(_ text: String, localUser: String = "u") throws -> SSHConfigImport {
        let source = SSHConfigSource(
            read: { path in
                guard path == "/home/u/.ssh/config" else { throw CocoaError(.fileNoSuchFile) }
                return text
            }, glob: { _ in [] }, homeDirectory: "/home/u")
        return SSHConfigResolver.resolve(
            try SSHConfigReader.read(path: "/home/u/.ssh/config", source: source), localUser: localUser)
    }

    func host(_ result: SSHConfigImport, _ alias: String) throws -> ImportedHost {
        try XCTUnwrap(result.hosts.first { $0.alias == alias }, "no host \(alias)")
    }

    func testOptionsAreKeptVerbatimInOrderAndPatternsBecomeDefaults() throws {
        let result = try resolve(
            """
            Host web
                HostName web.example.com
                ServerAliveInterval 15
                ForwardAgent=yes
                SetEnv LANG=C  TZ="Europe/Paris"
                ProxyCommand sh -c "nc %h %p"   # comment kept, as ssh keeps it
                IdentityFile ~/.ssh/first
                IdentityFile ~/.ssh/"second key"
            Host *.internal !bastion.internal
                Compression yes
                User ops
            Host *
                ControlMaster auto
                ControlPath ~/.ssh/cm-%C
                IdentityFile ~/.ssh/id_default
            """)
        let web = try host(result, "web")
        XCTAssertEqual(
            web.options,
            [
                "ServerAliveInterval 15", "ForwardAgent yes", "SetEnv LANG=C  TZ=\"Europe/Paris\"",
                "ProxyCommand sh -c \"nc %h %p\"   # comment kept, as ssh keeps it",
                "IdentityFile \"~/.ssh/second key\"",
            ])
        XCTAssertEqual(web.identityFiles.first, "~/.ssh/first")
        XCTAssertNil(web.proxyCommandJump)
        XCTAssertEqual(
            result.defaults,
            [
                OptionDefaults(
                    pattern: "*.internal !bastion.internal",
                    options: [
                        "Compression "
                            + "yes", "User ops",
                    ]),
                OptionDefaults(
                    pattern: "*",
                    options: ["ControlMaster auto", "ControlPath ~/.ssh/cm-%C", "IdentityFile ~/.ssh/id_default"]),
            ])
        XCTAssertTrue(result.defaults[0].matches("db.internal"))
        XCTAssertFalse(result.defaults[0].matches("bastion.internal"))
    }

    /// Every option the corpus counted as dropped (issue #12: ForwardAgent, AddKeysToAgent, ServerAliveInterval,
    /// ControlMaster/Persist, ProxyCommand, IdentitiesOnly, HostKeyAlgorithms, Compression, SetEnv) is kept — on the
    /// host or as a default, where the user wrote it — without a warning, honoured by the client where libssh2 can,
    /// named as OpenSSH-only where it cannot, and written back by export.
    func testEveryOptionTheCorpusCountedIsKeptHonouredOrNamed() throws {
        let result = try resolve(
            """
            Host *
                AddKeysToAgent yes
                ControlMaster auto
                ControlPersist 10m
            Host web
                HostName web.example.com
                ForwardAgent yes
                ServerAliveInterval 20
                ProxyCommand nc %h %p
                IdentitiesOnly yes
                HostKeyAlgorithms ssh-ed25519,ecdsa-sha2-nistp256
                Compression yes
                SetEnv LANG=C
            """)
        let web = try host(result, "web")
        let own = [
            "ForwardAgent yes", "ServerAliveInterval 20", "ProxyCommand nc %h %p", "IdentitiesOnly yes",
            "HostKeyAlgorithms ssh-ed25519,ecdsa-sha2-nistp256",
            "Compression "
                + "yes", "SetEnv LANG=C",
        ]
        XCTAssertEqual(web.options, own)
        let defaults = [
            OptionDefaults(pattern: "*", options: ["AddKeysToAgent yes", "ControlMaster auto", "ControlPersist 10m"])
        ]
        XCTAssertEqual(result.defaults, defaults)
        XCTAssertEqual(result.warnings, [], "nothing was dropped, so nothing to warn about")

        let record = Host(name: "web", hostname: "web.example.com", options: web.options)
        let settings = HostSettings.read(HostSettings.options(for: record, defaults: result.defaults))
        XCTAssertEqual(settings.serverAliveInterval, 20)
        XCTAssertEqual(settings.proxyCommand, "nc %h %p")
        XCTAssertTrue(settings.identitiesOnly)
        XCTAssertEqual(settings.hostKeyAlgorithms, "ssh-ed25519,ecdsa-sha2-nistp256")
        XCTAssertTrue(settings.compression)
        XCTAssertEqual(settings.setEnv.map { "\($0.name)=\($0.value)" }, ["LANG=C"])
        XCTAssertEqual(
            settings.unsupported, ["ForwardAgent", "AddKeysToAgent", "ControlMaster", "ControlPersist"],
            "each named once, for connect's note")

        let exported = SSHConfigEmitter.emit(
            .init(hosts: [record], identities: [], rules: [], groups: [], defaults: defaults))
        XCTAssertTrue(
            exported.contains("Host web\n    HostName web.example.com\n" + own.map { "    \($0)\n" }.joined()), exported
        )
        XCTAssertTrue(
            exported.hasSuffix("Host *\n    AddKeysToAgent yes\n    ControlMaster auto\n    ControlPersist 10m\n"),
            exported)
    }

    func testAValueAPatternBlockSetFirstIsNotKeptOnTheHost() throws {
        let result = try resolve(
            """
            Host *
                ServerAliveInterval 60
                SendEnv LANG
            Host web
                ServerAliveInterval 5
                SendEnv LC_*
                Compression yes
            """)
        // ssh uses the first value: Host * came first. SendEnv accumulates, so both count.
        XCTAssertEqual(
            try host(result, "web").options,
            [
                "SendEnv LC_*",
                "Compression "
                    + "yes",
            ])
        XCTAssertTrue(
            result.warnings.contains { $0.contains(":5: host 'web': ServerAliveInterval is set first by 'Host *'") },
            result.warnings.joined(separator: "\n"))
        let settings = HostSettings.read(
            HostSettings.options(
                for: Host(name: "web", options: try host(result, "web").options), defaults: result.defaults))
        XCTAssertEqual(settings.serverAliveInterval, 60)
        XCTAssertEqual(settings.sendEnv, ["LC_*", "LANG"])
    }

    func testAUnixSocketForwardIsKeptAsTheHostsLineForOpenSSH() throws {
        let result = try resolve(
            """
            Host gpg
                HostName gpg.example.com
                RemoteForward /run/user/1000/gnupg/S.gpg-agent /home/u/.gnupg/S.gpg-agent.extra
                LocalForward 5432 /var/run/postgresql/.s.PGSQL.5432
                LocalForward 8080 localhost:80
            """)
        let gpg = try host(result, "gpg")
        XCTAssertEqual(gpg.forwards.map(\.description), ["127.0.0.1:8080:localhost:80"])
        XCTAssertEqual(
            gpg.options,
            [
                "RemoteForward /run/user/1000/gnupg/S.gpg-agent /home/u/.gnupg/S.gpg-agent.extra",
                "LocalForward 5432 /var/run/postgresql/.s.PGSQL.5432",
            ])
        XCTAssertTrue(result.failures.isEmpty, result.failures.joined(separator: "\n"))
        XCTAssertTrue(result.warnings.isEmpty, result.warnings.joined(separator: "\n"))
        let settings = HostSettings.read(gpg.options.sshOptions)
        XCTAssertEqual(settings.socketForwards, gpg.options, "sshelf's client names each, and runs none")
        XCTAssertEqual(settings.unsupported, ["RemoteForward", "LocalForward"])
        XCTAssertNotNil(SSHOption.problem("LocalForward 8080 localhost:80"), "a TCP forward is a rule, never a line")
    }

    func testAnUnreadableMatchLineSkipsOnlyItsBlock() throws {
        let result = try resolve(
            """
            Host before
                HostName 10.0.0.1
            Match exec "test -f /tmp/flag
                User matched
                Compression yes
            Host after
                HostName 10.0.0.2
            """)
        XCTAssertEqual(result.hosts.map(\.alias), ["before", "after"])
        XCTAssertEqual(try host(result, "after").user, "")
        XCTAssertEqual(try host(result, "before").options, [])
        XCTAssertTrue(
            result.skipped.contains {
                $0.hasPrefix("/home/u/.ssh/config:3: Match block skipped: its line cannot be read")
            },
            result.skipped.joined(separator: "\n"))
        XCTAssertTrue(
            result.notes.contains {
                $0.contains(":3: the skipped Match block sets Compression, User and may change any host")
            },
            result.notes.joined(separator: "\n"))
    }

    func testMatchBlocksAreDecidedForEachNameAndWhatOnlySshCanDecideIsKept() throws {
        let result = try resolve(
            """
            Host web1 web2 db
                User deploy
            Host web1
                HostName 10.1.0.1
            Match host 10.1.* !originalhost web2
                Port 2222
            Match originalhost db,web2
            Match user root exec "true"
                ForwardAgent yes
            Match user deploy !originalhost db exec "test -e /run/vpn"
                Compression yes
            Match nonsense here
                User x
            """,
            localUser: "root")
        // `host` is the HostName so far: web1's only; web2 and db keep the default port.
        XCTAssertEqual(try host(result, "web1").port, 2222)
        XCTAssertEqual(try host(result, "web2").port, 22)
        XCTAssertEqual(try host(result, "db").port, 22)
        // `user root` fails for every name (their User is deploy), so ssh never runs its command: nothing kept.
        XCTAssertFalse(result.hosts.contains { $0.options.contains("ForwardAgent yes") })
        XCTAssertEqual(
            result.defaults,
            [
                OptionDefaults(
                    match: "user deploy !originalhost db exec \"test -e /run/vpn\"", options: ["Compression yes"]),
                OptionDefaults(match: "nonsense here", options: ["User x"]),
            ])
        let notes = result.notes
        for name in ["web1", "web2"] {
            XCTAssertTrue(
                notes.contains {
                    $0.contains(
                        "host '\(name)': 'Match user deploy !originalhost db exec \"test -e /run/vpn\"' at "
                            + "/home/u/.ssh/config:10 is kept as written for OpenSSH (ssh decides its exec criterion")
                },
                notes.joined(separator: "\n"))
        }
        XCTAssertFalse(notes.contains { $0.contains("host 'db'") }, notes.joined(separator: "\n"))
        XCTAssertTrue(
            notes.contains {
                $0.contains(
                    ":12: 'Match nonsense here' is not a Match line sshelf can read; kept as written for OpenSSH, it "
                        + "sets User and may change any host")
            })
        XCTAssertEqual(notes.count, 3, notes.joined(separator: "\n"))
    }

    /// `user` is the User set so far, else the local user; `localuser` the local user; `final` and `canonical` hold in
    /// the second reading only, which a `final` anywhere asks for, matching Host patterns against the HostName.
    func testMatchUserLocaluserAndTheFinalReading() throws {
        let config = """
            Match user alice
                Port 1001
            Host a
                HostName 10.9.0.1
            Match localuser alice
                Compression yes
            Host b
                User bob
                HostName 10.9.0.2
            Match user bob
                Port 1002
            Match canonical originalhost a
                User from-final
            Host 10.9.0.*
                ServerAliveInterval 5
            """
        let plain = try resolve(config, localUser: "alice")
        XCTAssertEqual(try host(plain, "a").port, 1001)
        XCTAssertEqual(try host(plain, "a").options, ["Compression yes"])
        XCTAssertEqual(try host(plain, "a").user, "")
        // Order counts: when `Match user alice` is read, b has no User yet, so it is the local alice.
        XCTAssertEqual(try host(plain, "b").port, 1001)
        XCTAssertEqual(try host(plain, "b").user, "bob")
        let final = try resolve(config + "\nMatch !final\n", localUser: "carol")
        XCTAssertEqual(try host(final, "a").port, 22)
        XCTAssertEqual(try host(final, "a").user, "from-final")
        // The pattern block meets the HostName in the second reading: its line is the host's own there.
        XCTAssertEqual(try host(final, "a").options, ["ServerAliveInterval 5"])
        XCTAssertEqual(try host(final, "b").options, ["ServerAliveInterval 5"])
    }

    func testProxyCommandThatIsOnlyAJumpIsRead() {
        XCTAssertEqual(ProxyCommandJump.hosts("ssh -q -W %h:%p bastion"), ["bastion"])
        XCTAssertEqual(ProxyCommandJump.hosts("ssh bastion -W %h:%p"), ["bastion"])
        XCTAssertEqual(ProxyCommandJump.hosts("exec /usr/bin/ssh -qT -W [%h]:%p gw"), ["gw"])
        XCTAssertEqual(ProxyCommandJump.hosts("ssh -J outer,middle -W %h:%p inner"), ["outer", "middle", "inner"])
        XCTAssertNil(ProxyCommandJump.hosts("ssh -W %h:%p -p 2222 bastion"))  // a port of its own: not a plain jump
        XCTAssertNil(ProxyCommandJump.hosts("ssh -W %h:%p jump@bastion"))
        XCTAssertNil(ProxyCommandJump.hosts("ssh bastion nc %h %p"))
        XCTAssertNil(ProxyCommandJump.hosts("nc -X 5 -x proxy:1080 %h %p"))
        XCTAssertNil(ProxyCommandJump.hosts("ssh -W %h:22 bastion"))
    }

    func testProxyJumpAndProxyCommandExcludeEachOtherFirstWins() throws {
        let result = try resolve(
            """
            Host a
                ProxyCommand ssh -W %h:%p bastion
                ProxyJump other
            Host b
                ProxyJump other
                ProxyCommand ssh -W %h:%p bastion
            """)
        XCTAssertEqual(try host(result, "a").proxyJump, [])
        XCTAssertEqual(try host(result, "a").proxyCommandJump, ["bastion"])
        XCTAssertEqual(try host(result, "b").proxyJump, ["other"])
        XCTAssertNil(try host(result, "b").proxyCommandJump)
    }

    func testWhatTheClientReads() {
        let settings = HostSettings.read(
            [
                "ServerAliveInterval 1m30s", "ServerAliveCountMax 2",
                "Compression "
                    + "yes", "Ciphers aes256-ctr",
                "KexAlgorithms -diffie-hellman*", "ConnectTimeout 7", "IdentitiesOnly yes", "IdentityFile ~/.ssh/a",
                "StrictHostKeyChecking accept-new", "SetEnv A=1 B=\"two words\"", "SendEnv LANG", "RequestTTY force",
                "ForwardAgent yes", "ForwardX11 no", "ControlMaster auto", "LogLevel DEBUG", "ServerAliveInterval 5",
                "NumberOfPasswordPrompts 1", "IdentityAgent none", "Compression maybe",
            ].sshOptions)
        XCTAssertEqual(settings.serverAliveInterval, 90)
        XCTAssertEqual(settings.serverAliveCountMax, 2)
        XCTAssertTrue(settings.compression)
        XCTAssertEqual(settings.ciphers, "aes256-ctr")
        XCTAssertEqual(settings.kexAlgorithms, "-diffie-hellman*")
        XCTAssertEqual(settings.connectTimeout, 7)
        XCTAssertTrue(settings.identitiesOnly)
        XCTAssertEqual(settings.identityFiles, ["~/.ssh/a"])
        XCTAssertEqual(settings.hostKeyPolicy, .acceptNew)
        XCTAssertEqual(settings.setEnv.map { "\($0.name)=\($0.value)" }, ["A=1", "B=two words"])
        XCTAssertEqual(settings.sendEnv, ["LANG"])
        XCTAssertEqual(settings.requestTTY, .force)
        XCTAssertEqual(settings.numberOfPasswordPrompts, 1)
        XCTAssertEqual(settings.identityAgent, "none")
        // What it cannot do is named; "off" values and inert keywords are not.
        XCTAssertEqual(settings.unsupported, ["ForwardAgent", "ControlMaster"])
        XCTAssertEqual(HostSettings.read(["StrictHostKeyChecking no"].sshOptions).hostKeyPolicy, .acceptNew)
        XCTAssertEqual(HostSettings.read(["StrictHostKeyChecking yes"].sshOptions).hostKeyPolicy, .strict)
        XCTAssertEqual(HostSettings.read(["ServerAliveInterval soon"].sshOptions).invalid.count, 1)
    }

    func testOptionLinesAreCheckedAndEdited() {
        XCTAssertNil(SSHOption.problem("ServerAliveInterval 30"))
        XCTAssertNotNil(SSHOption.problem("HostName other"))  // a field of its own
        XCTAssertNotNil(SSHOption.problem("ForwardAgent"))  // no value
        XCTAssertNotNil(SSHOption.problem("ProxyCommand nc %h %p\nHost evil"))
        XCTAssertNotNil(SSHOption.problem("Bad-Key x"))
        XCTAssertNotNil(SSHOption.problem("SetEnv A=\"open"))
        XCTAssertEqual(SSHOption(line: "Ciphers = aes128-ctr")?.line, "Ciphers aes128-ctr")
        let lines = [
            "SendEnv LANG",
            "Compression "
                + "yes", "SendEnv LC_*", "ForwardAgent yes",
        ]
        let edited = SSHOption.edited(
            lines, setting: ["sendenv TZ", "SendEnv EDITOR", "ServerAliveInterval 5"],
            removing: ["forwardagent", "Nothing"])
        XCTAssertEqual(
            edited.lines,
            [
                "sendenv TZ", "SendEnv EDITOR",
                "Compression "
                    + "yes", "ServerAliveInterval 5",
            ])
        XCTAssertEqual(edited.notFound, ["Nothing"])
    }

    func testEmitterWritesOptionsIdentitiesOnlyAsWrittenAndJumpsByAlias() {
        let identity = Identity(name: "k", keyFile: "~/.ssh/k")
        let bastion = Host(name: "bastion", hostname: "b.example.com", port: 2200, user: "jump")
        let hidden = Host(name: "odd*", hostname: "o.example.com")
        let web = Host(
            name: "web", hostname: "w.example.com", identityID: identity.id, jumpHostIDs: [bastion.id],
            options: ["ServerAliveInterval 15", "IdentitiesOnly no"])
        let db = Host(name: "db", hostname: "d.example.com", identityID: identity.id, jumpHostIDs: [hidden.id])
        let evil = Host(
            name: "evil", hostname: "e.example.com", options: ["Compression yes\nHost *", "HostName x.example"])
        let text = SSHConfigEmitter.emit(
            .init(
                hosts: [bastion, hidden, web, db, evil], identities: [identity], rules: [],
                groups: [],
                defaults: [
                    OptionDefaults(
                        pattern: "*",
                        options: [
                            "Compression "
                                + "yes"
                        ])
                ]))
        XCTAssertTrue(
            text.contains(
                """
                Host web
                    HostName w.example.com
                    IdentityFile ~/.ssh/k
                    ProxyJump bastion
                    ServerAliveInterval 15
                    IdentitiesOnly no

                """), text)
        // IdentitiesOnly only where it was written; a jump host that is not in the file is written by address.
        XCTAssertFalse(text.contains("IdentitiesOnly yes"), text)
        XCTAssertTrue(
            text.contains(
                "Host db\n    HostName d.example.com\n    IdentityFile ~/.ssh/k\n    ProxyJump o.example.com\n"), text)
        XCTAssertTrue(text.hasSuffix("\nHost *\n    Compression yes\n"), text)
        // A line that could inject config (a newline) or that names a modelled field is never written as such.
        XCTAssertFalse(text.contains("\nHost *\n    Compression yes\n\n"), text)
        XCTAssertFalse(text.contains("HostName x.example"), text)
        XCTAssertEqual(text.components(separatedBy: "# an option was left out").count - 1, 2, text)
    }

    func testBridgeAddsTheAgentPinsAndScopedDefaults() {
        var vaultKey = Identity(name: "vault key", publicKey: "ssh-ed25519 AAAAC3Nza")
        vaultKey.privateKeyRef = ReferenceKey.identityPrivateKey(vaultKey.id)
        let pinned = Host(
            name: "pinned", hostname: "p.example.com", identityID: vaultKey.id,
            pinnedHostKey: PinnedHostKey(type: "ssh-ed25519", key: "AAAA"),
            options: ["IdentitiesOnly no"])
        let plain = Host(name: "plain", hostname: "q.example.com", options: ["Compression no"])
        let bridge = SSHConfigEmitter.Bridge(
            agentSocket: "/run/a/socket", pinsFile: "/c/pins",
            publicKeyFiles: [vaultKey.id: "/c/keys/k.pub"], refused: ["Tunnel maybe": "bad"])
        let tunnel = PortForwardRule(
            hostID: plain.id, kind: .local, bindPort: 5432, targetHost: "localhost", targetPort: 5432)
        let text = SSHConfigEmitter.emitBridge(
            .init(
                hosts: [pinned, plain], identities: [vaultKey], rules: [tunnel], groups: [],
                defaults: [
                    OptionDefaults(
                        pattern: "p*",
                        options: [
                            "Compression "
                                + "yes", "Tunnel maybe", "SendEnv LANG",
                        ])
                ]),
            bridge: bridge)
        XCTAssertTrue(
            text.contains(
                """
                Host pinned
                    HostName p.example.com
                    IdentityAgent /run/a/socket
                    IdentityFile /c/keys/k.pub
                    HostKeyAlias sshelf-\(pinned.id.uuidString.lowercased())
                    UserKnownHostsFile /c/pins
                    GlobalKnownHostsFile /dev/null
                    StrictHostKeyChecking yes
                    UpdateHostKeys no
                    IdentitiesOnly no
                    Compression yes
                    # left out, this ssh refuses it (bad): Tunnel maybe
                    SendEnv LANG

                """), text)
        // The host's own value comes first and its defaults' same keyword is not repeated; no Host pattern block.
        XCTAssertTrue(
            text.contains(
                """
                Host plain
                    HostName q.example.com
                    Compression no
                    # left out, this ssh refuses it (bad): Tunnel maybe
                    SendEnv LANG
                """), text)
        XCTAssertFalse(text.contains("Host p*"), text)
        // The rule is sshelf's to run: not a forward of every `ssh plain`.
        XCTAssertFalse(text.contains("5432"), text)
    }
}
