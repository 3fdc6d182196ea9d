// SSHConfigQuotingTests: ssh_config arguments read as OpenSSH's argv_split reads them, written so they read back
// exactly, refused where no spelling reads back; the emitter leaving out (with the reason) a host it cannot write
// so that every line it does write reads back; and ProxyCommand tokens that refuse shell syntax and quote the rest.
import Foundation
import ShelfCore
import XCTest

final class SSHConfigQuotingTests: XCTestCase {
    func lex(_ line: String) throws -> [String] {
        try SSHConfigLexer.lex(Substring(line), file: "f", number: 1).map { [$0.key] + $0.arguments } ?? []
    }

    func testTheLexerReadsQuotesAndEscapesAsArgvSplit() throws {
        XCTAssertEqual(try lex("Host 'single quoted' \"double\""), ["host", "single quoted", "double"])
        XCTAssertEqual(try lex("Host a\\ b"), ["host", "a b"])
        XCTAssertEqual(try lex("User \"a\\\"b\""), ["user", "a\"b"])
        XCTAssertEqual(try lex("User \"it's\""), ["user", "it's"])
        XCTAssertEqual(try lex("User 'say \"hi\"'"), ["user", "say \"hi\""])
        XCTAssertEqual(try lex("Host \"my host\\\\\""), ["host", "my host\\"])
        XCTAssertEqual(try lex("Host x\\"), ["host", "x\\"])  // a lone backslash is itself
        XCTAssertEqual(try lex("Host a\\qb"), ["host", "a\\qb"])
        XCTAssertEqual(try lex("Host a#b #c"), ["host", "a#b"])
        XCTAssertEqual(try lex("Host \"\"#x"), ["host", "#x"])
        // What ssh refuses as "invalid quotes" is a syntax error here too: it would stop every ssh reading the file.
        for line in ["User o'brien", "Host \"my host\\\"", "LocalForward 8080 a\"b:80", "LocalCommand echo it's"] {
            XCTAssertThrowsError(try lex(line), line)
        }
    }

    /// Values that broke the bridge file before (quotes, a trailing backslash, '#', '=') and a few more.
    static let awkward = [
        "a\"b", "x\\", "o'brien", "my host\\", "it's \"quoted\"", "#hash", "=eq", "a  b", "\\\\", "'",
        "\"", "ünïcode wörd", "a\\ b", "%h%%",
    ]

    func testEveryArgumentReadsBackAsWritten() throws {
        for value in Self.awkward {
            let line = try SSHConfigArgument.line("Host", [value, "other"], .literal)
            XCTAssertEqual(try lex(line), ["host", value, "other"], line)
        }
        // HostName is %-expanded by ssh, so a % is written as %% (an IPv6 scope).
        XCTAssertEqual(try SSHConfigArgument.line("HostName", ["fe80::1%eth0"], .hostname), "HostName fe80::1%%eth0")
        XCTAssertEqual(
            try SSHConfigArgument.line("IdentityFile", ["/k/50% off key"], .path), "IdentityFile \"/k/50%% off key\"")
    }

    func testWhatNoSpellingReadsBackIsRefused() {
        let refused: [(String, SSHConfigArgument.Kind, String)] = [
            ("", .literal, "is empty"),
            ("a\nHost evil", .literal, "control character (U+000A)"),
            ("a\rb", .literal, "control character (U+000D)"),
            ("a\u{85}b", .literal, "control character (U+0085)"),
            ("a\u{2028}b", .literal, "control character (U+2028)"),
            ("a\u{2029}b", .literal, "control character (U+2029)"),
            ("a%b", .user, "newer ssh expands in User"),
            ("${HOME}", .user, "newer ssh expands in User"),
            ("/run/${X}/s", .path, "which ssh would expand"),
        ]
        for (value, kind, reason) in refused {
            XCTAssertThrowsError(try SSHConfigArgument.line("X", [value], kind), value.debugDescription) { error in
                XCTAssertTrue((error as? SSHConfigArgument.Unwritable)?.reason.contains(reason) == true, "\(error)")
            }
        }
    }

    func testTheEmitterLeavesOutWhatItCannotWriteAndEverythingElseReadsBack() throws {
        let good = [
            Host(name: "my host\\", hostname: "10.0.0.1"),
            Host(name: "say \"hi\" #1", hostname: "10.0.0.2", user: "DOM\\ops"),
            Host(name: "v6", hostname: "fe80::1%eth0", user: "a$b"),
        ]
        // Records as another device may sync them: never typed here, never validated here.
        let quoteHost = Host(name: "q1", hostname: "a\"b")
        let quoteUser = Host(name: "q2", hostname: "10.0.0.3", user: "o'brien")
        let percentUser = Host(name: "q3", hostname: "10.0.0.4", user: "a%b")
        let shellHost = Host(name: "q4", hostname: "$(touch${IFS}pwned)")
        let badJump = Host(name: "q5", hostname: "10.0.0.5", unresolvedJump: "j;id")
        let forwarded = Host(name: "fw", hostname: "10.0.0.6")
        let rules = [
            PortForwardRule(hostID: forwarded.id, kind: .local, bindPort: 8080, targetHost: "a\"b", targetPort: 80),
            PortForwardRule(hostID: forwarded.id, kind: .local, bindPort: 8081, targetHost: "x\\", targetPort: 80),
            PortForwardRule(hostID: forwarded.id, kind: .local, bindPort: 8082, targetHost: "db", targetPort: 5432),
        ]
        let bad = [quoteHost, quoteUser, percentUser, shellHost, badJump]
        let input = SSHConfigEmitter.Input(hosts: good + bad + [forwarded], identities: [], rules: rules, groups: [])
        let text = SSHConfigEmitter.emit(input)

        var hosts: [String] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let lexed = try SSHConfigLexer.lex(line, file: "export", number: number + 1)
            if lexed?.key == "host" { hosts += lexed?.arguments ?? [] }
        }
        XCTAssertEqual(hosts.sorted(), (good.map(\.name) + ["fw"]).sorted(), text)
        XCTAssertTrue(text.contains("Host \"my host\\\\\"\n"), text)
        XCTAssertTrue(text.contains("    HostName fe80::1%%eth0\n    User a$b\n"), text)
        XCTAssertTrue(text.contains("    User \"DOM\\\\ops\"\n"), text)
        for host in bad {
            XCTAssertTrue(text.contains("# skipped host \(host.id.uuidString.lowercased()): its "), text)
        }
        XCTAssertTrue(text.contains("    LocalForward 127.0.0.1:8082 db:5432\n"), text)
        XCTAssertEqual(text.components(separatedBy: "# a forward was left out: target host").count, 3, text)
        XCTAssertFalse(text.contains("touch"), text)

        // `check` hears the same reasons for the hosts whose fields are otherwise valid.
        let reasons = SSHConfigEmitter.unwritableHosts(input)
        XCTAssertEqual(Set(reasons.keys), Set(bad.map(\.id)))
        XCTAssertTrue(reasons[percentUser.id]?.contains("newer ssh expands in User") == true, "\(reasons)")
        let problems = ModelCheck.problems(groups: [], hosts: good + bad, identities: [], rules: [])
        XCTAssertEqual(problems.filter { $0.kind == .notWritable }.map(\.recordID), [percentUser.id], "\(problems)")
        XCTAssertEqual(
            Set(problems.filter { $0.kind == .invalidField }.map(\.recordID)),
            [quoteHost.id, quoteUser.id, shellHost.id, badJump.id])
    }

    // MARK: ProxyCommand tokens

    let values = ProxyCommandTokens.Values(hostname: "db.corp", port: 2222, user: "ops", name: "db")

    func expand(_ command: String, _ change: (inout ProxyCommandTokens.Values) -> Void = { _ in }) throws -> String {
        var values = values
        change(&values)
        return try ProxyCommandTokens.expand(command, values)
    }

    func testTokensHoldingShellSyntaxAreRefused() {
        let payloads = [
            "$(touch${IFS}pwned)", "`touch pwned`", "a;touch pwned", "a|sh", "a&&id", "x>y", "(id)", "{a,b}",
            "it's", "a\"b", "-oProxyCommand=x", "a\nb", "a b",
        ]
        for payload in payloads {
            for (token, change) in [
                ("%h", { (v: inout ProxyCommandTokens.Values) in v.hostname = payload }),
                ("%r", { (v: inout ProxyCommandTokens.Values) in v.user = payload }),
                ("%n", { (v: inout ProxyCommandTokens.Values) in v.name = payload }),
            ] {
                XCTAssertThrowsError(try expand("socat - TCP:\(token):%p", change), "\(token) \(payload)") { error in
                    XCTAssertTrue(
                        (error as? ProxyCommandTokens.Refusal)?.message.contains("cannot put the") == true, "\(error)")
                }
            }
        }
        // Only the tokens the command uses are looked at.
        XCTAssertEqual(try expand("nc %h %p") { $0.name = "x$(id)" }, "nc db.corp 2222")
        XCTAssertThrowsError(try expand("nc %h %d"))
    }

    func testOtherValuesAreQuotedWhereTheyLand() throws {
        XCTAssertEqual(try expand("nc %h %p # %% %r %n"), "nc db.corp 2222 # % ops db")
        XCTAssertEqual(try expand("nc %h %p") { $0.hostname = "web*" }, "nc 'web*' 2222")
        XCTAssertEqual(try expand("sh -c 'nc %h %p'") { $0.hostname = "web*" }, "sh -c 'nc web* 2222'")
        XCTAssertEqual(try expand("echo \"%r\"") { $0.user = "DOM\\u$x" }, "echo \"DOM\\\\u\\$x\"")
        XCTAssertEqual(try expand("echo %r") { $0.user = "DOM\\u$x" }, "echo 'DOM\\u$x'")
        XCTAssertEqual(try expand("echo [%r]") { $0.user = "" }, "echo []")
    }
}
