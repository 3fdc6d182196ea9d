// ssh_config import: a corpus of realistic configs (several names per block, Include with globs, quoting,
// `=` forms, Match, wildcards, IPv6, forwards, comments) resolved as `ssh -G` would, with expected results.
import Foundation
import ShelfCore
import XCTest

final class SSHConfigTests: XCTestCase {
    /// An in-memory file system: path → text; globs match `*` within one path component.
    func source(_ files: [String: String]) -> SSHConfigSource {
        SSHConfigSource(
            read: { path in
                guard let text = files[path] else { throw CocoaError(.fileNoSuchFile) }
                return text
            },
            glob: { pattern in files.keys.filter { SSHConfigResolver.glob(pattern, $0) }.sorted() },
            homeDirectory: "/home/u")
    }

    func resolve(_ main: String, _ others: [String: String] = [:]) throws -> SSHConfigImport {
        var files = others
        files["/home/u/.ssh/config"] = main
        let document = try SSHConfigReader.read(path: "/home/u/.ssh/config", source: source(files))
        return SSHConfigResolver.resolve(document)
    }

    func host(_ result: SSHConfigImport, _ alias: String) -> ImportedHost? { result.hosts.first { $0.alias == alias } }

    func testRealisticConfig() throws {
        let result = try resolve(
            """
            # personal config
            Host web1 web2
                HostName %h.example.com
                User deploy
                Port 2222
            Host db
              HostName=10.0.0.5   # trailing comment
              User = "postgres"
              IdentityFile ~/.ssh/id_ed25519
              IdentityFile ~/.ssh/id_second
              LocalForward 5432 localhost:5432
              LocalForward [::1]:8080 [2001:db8::1]:80
              DynamicForward 1080
              RemoteForward 0.0.0.0:9000 localhost:9000
              ProxyJump bastion
            HOST v6
              hostname 2001:db8::10
            Host *.internal !secret.internal
              User internal-user
            Match host foo exec "true"
              User matched
            Host *
              User fallback
              Port 22
            """)
        XCTAssertEqual(result.hosts.map(\.alias), ["web1", "web2", "db", "v6"])
        let web2 = try XCTUnwrap(host(result, "web2"))
        XCTAssertEqual(web2.hostname, "web2.example.com")
        XCTAssertEqual(web2.user, "deploy")
        XCTAssertEqual(web2.port, 2222)
        let db = try XCTUnwrap(host(result, "db"))
        XCTAssertEqual(db.hostname, "10.0.0.5")
        XCTAssertEqual(db.user, "postgres")
        XCTAssertEqual(db.identityFiles, ["~/.ssh/id_ed25519", "~/.ssh/id_second"])
        XCTAssertEqual(
            db.forwards.map(\.description),
            [
                "127.0.0.1:5432:localhost:5432", "[::1]:8080:[2001:db8::1]:80", "127.0.0.1:1080",
                "0.0.0.0:9000:localhost:9000",
            ])
        XCTAssertEqual(db.proxyJump, ["bastion"])
        let v6 = try XCTUnwrap(host(result, "v6"))
        XCTAssertEqual(v6.hostname, "2001:db8::10")
        XCTAssertEqual(v6.user, "fallback")  // first value wins; Host * came last
        // One word for what happened to each pattern: its options are kept as defaults, so it is not "skipped".
        // `Match host foo exec "true"`: no name's host is foo, so ssh never runs the command; nothing is left to it.
        XCTAssertEqual(result.skipped, [])
        XCTAssertFalse(result.defaults.contains { $0.isMatch })
        XCTAssertEqual(result.notes, [])
        XCTAssertEqual(
            result.keptAsDefaults,
            [
                "/home/u/.ssh/config:18: Host pattern '*.internal': its options apply to the hosts it matches",
                "/home/u/.ssh/config:18: Host pattern '!secret.internal': its options apply to the hosts it matches",
                "/home/u/.ssh/config:22: Host pattern '*': its options apply to the hosts it matches",
            ])
        // A pattern with nothing to keep is skipped, and only that.
        let empty = try resolve("Host web1\n  User a\nHost *.lab\n")
        XCTAssertEqual(empty.keptAsDefaults, [])
        XCTAssertEqual(
            empty.skipped,
            ["/home/u/.ssh/config:3: Host pattern '*.lab' is a wildcard with no options to keep, not a host"])
    }

    func testIncludeWithGlobsRelativePathsAndBlockRestore() throws {
        let result = try resolve(
            """
            Include conf.d/*.conf
            Host outer
              Include extra/common
              Port 2200
            """,
            [
                "/home/u/.ssh/conf.d/a.conf": "Host from-a\n  HostName a.example\n",
                "/home/u/.ssh/conf.d/b.conf": "Host from-b\n  User bee\n",
                "/home/u/.ssh/conf.d/ignored.txt": "Host nope\n",
                "/home/u/.ssh/extra/common": "User shared\nHost inner-only\n  Port 1\n",
            ])
        XCTAssertEqual(result.hosts.map(\.alias), ["from-a", "from-b", "outer", "inner-only"])
        let outer = try XCTUnwrap(host(result, "outer"))
        XCTAssertEqual(outer.user, "shared")
        // The Port after the Include still belongs to `outer`, not to the included file's last Host block.
        XCTAssertEqual(outer.port, 2200)
        XCTAssertEqual(host(result, "inner-only")?.port, 1)
    }

    func testAGroupAnnotationInAnIncludedFileEndsWithThatFile() throws {
        let result = try resolve(
            """
            #@group: outer
            Host before
            Include conf.d/*.conf
            Host after
            #@group:
            Include none.conf
            Host ungrouped
            """,
            [
                "/home/u/.ssh/conf.d/a.conf": "#@group: team-a\nHost from-a\n",
                "/home/u/.ssh/conf.d/b.conf": "Host from-b\n",
                "/home/u/.ssh/none.conf": "#@group: inner\nHost from-none\n",
            ])
        XCTAssertEqual(
            result.hosts.map { "\($0.alias)=\($0.group ?? "-")" },
            ["before=outer", "from-a=team-a", "from-b=outer", "after=outer", "from-none=inner", "ungrouped=-"],
            "an included file's group ends with that file; the including file's is in force again after it")
    }

    func testIncludeLoopIsRefusedClearly() {
        XCTAssertThrowsError(try resolve("Include config\n")) { error in
            XCTAssertTrue("\(error)".contains("nested more than 16 deep"), "\(error)")
        }
    }

    func testBadValuesSkipTheHostWithItsLine() throws {
        let result = try resolve(
            """
            Host good
              HostName ok.example
            Host badport
              Port 99999
            Host badfwd
              LocalForward 80
            Host inject
              HostName -oProxyCommand=evil
            """)
        XCTAssertEqual(result.hosts.map(\.alias), ["good"])
        XCTAssertEqual(result.failures.count, 3)
        XCTAssertTrue(result.failures.contains { $0.contains("config:4:") && $0.contains("Port '99999'") })
        XCTAssertTrue(result.failures.contains { $0.contains("starts with '-'") })
    }

    func testSyntaxErrorsNameTheLine() {
        XCTAssertThrowsError(try resolve("Host a\n  User \"unterminated\n")) { error in
            XCTAssertEqual("\(error)", "/home/u/.ssh/config:2: unterminated quote in 'User' line")
        }
        XCTAssertThrowsError(try resolve("Host a\n\0\u{1}binary")) { error in
            XCTAssertTrue("\(error)".contains("NUL"), "\(error)")
        }
    }

    func testLexerForms() throws {
        func lex(_ s: String) throws -> [String] {
            let line = try SSHConfigLexer.lex(Substring(s), file: "f", number: 1)
            return line.map { [$0.key] + $0.arguments } ?? []
        }
        XCTAssertEqual(try lex("  HostName=example.com"), ["hostname", "example.com"])
        XCTAssertEqual(try lex("Port = 22"), ["port", "22"])
        XCTAssertEqual(try lex("Host \"my host\" other # comment"), ["host", "my host", "other"])
        XCTAssertEqual(try lex("User a#b"), ["user", "a#b"])
        XCTAssertEqual(try lex("# only a comment"), [])
        XCTAssertEqual(try lex("   \r"), [])
    }

    func testWildcardMatchingFollowsOpenSSH() {
        XCTAssertTrue(SSHConfigResolver.glob("*.example.com", "a.example.com"))
        XCTAssertTrue(SSHConfigResolver.glob("web?", "web1"))
        XCTAssertFalse(SSHConfigResolver.glob("web?", "web12"))
        XCTAssertTrue(SSHConfigResolver.glob("*a*a*a*", "bababab" + "a"))
        XCTAssertFalse(
            SSHConfigResolver.glob(String(repeating: "*a", count: 30) + "b", String(repeating: "a", count: 200)))
    }

    func testEmitterQuotesAndSkipsPatternNames() {
        let jump = ShelfCore.Host(name: "bastion", hostname: "b.example", port: 2022, user: "j")
        var target = ShelfCore.Host(name: "db", hostname: "2001:db8::1", user: "pg")
        target.jumpHostIDs = [jump.id]
        let identity = Identity(name: "k", keyFile: "~/.ssh/my key")
        target.identityID = identity.id
        let pattern = ShelfCore.Host(name: "web*", hostname: "x")
        let rule = PortForwardRule(
            hostID: target.id, kind: .local, bindPort: 5432, targetHost: "localhost", targetPort: 5432)
        let text = SSHConfigEmitter.emit(
            .init(hosts: [jump, target, pattern], identities: [identity], rules: [rule], groups: []))
        XCTAssertTrue(text.contains("Host db\n    HostName 2001:db8::1\n    User pg\n"), text)
        XCTAssertTrue(text.contains("IdentityFile \"~/.ssh/my key\""), text)
        XCTAssertTrue(text.contains("ProxyJump bastion\n"), text)  // by alias: the jump host is in the same file
        XCTAssertTrue(text.contains("LocalForward 127.0.0.1:5432 localhost:5432"), text)
        XCTAssertFalse(text.contains("Host web*"), text)
        XCTAssertTrue(text.contains("# skipped host"), text)
    }
}
