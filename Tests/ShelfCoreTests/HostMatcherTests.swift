// HostMatcher: the one search rule of `list FILTER` and the TUI, on a table of cases — which hosts match
// (every term within ONE field: name, host name, user, a tag, the group path), in which order (exact, prefix,
// word starts, runs; the name before the address; ties by last connected, then list order), and which
// characters are highlighted.
import Foundation
import ShelfCore
import XCTest

final class HostMatcherTests: XCTestCase {
    struct Fleet {
        let hosts: [ShelfCore.Host]
        let matcher: HostMatcher

        /// Hosts in the given order (the list order ties fall back to), in groups by path.
        init(_ hosts: [ShelfCore.Host], groups: [UUID: String] = [:]) {
            self.hosts = hosts
            var builder = HostTableBuilder(expectedCount: hosts.count)
            for host in hosts { builder.append(host) }
            let table = builder.finish(token: [])
            matcher = HostMatcher(table: table, groupPaths: table.groupIDs.map { groups[$0] ?? "" })
        }

        func search(_ query: String) -> [String] {
            matcher.search(HostQuery(query), in: (0..<Int32(hosts.count)).map { $0 })
                .map { matcher.table.name(Int($0)) }
        }
    }

    static func host(
        _ name: String, _ hostname: String = "h.example.com", user: String = "", tags: [String] = [],
        group: UUID? = nil, connected: TimeInterval? = nil
    ) -> ShelfCore.Host {
        ShelfCore.Host(
            name: name, hostname: hostname, user: user, groupID: group, tags: tags,
            lastConnectedAt: connected.map { Date(timeIntervalSince1970: $0) })
    }

    /// (query, hosts in list order, expected result names in order) — the ranking table.
    static let cases: [(String, [ShelfCore.Host], [String], String)] = [
        (
            "lab", [host("web3", "example.com", user: "deploy"), host("lab-1")], ["lab-1"],
            "a term never matches across fields: not web3 through dep-l-oy ex-a-mple we-b"
        ),
        (
            "web", [host("cobweb"), host("db-web"), host("web-1"), host("web")], ["web", "web-1", "db-web", "cobweb"],
            "exact, then prefix, then a word start, then inside a word"
        ),
        (
            "prod", [host("xprodx"), host("p-r-o-d"), host("prod-1")], ["prod-1", "p-r-o-d", "xprodx"],
            "a run at the start beats letters at word starts, which beat a run inside a word"
        ),
        (
            "web", [host("wxexb"), host("webserver")], ["webserver", "wxexb"],
            "a contiguous run beats the same letters scattered"
        ),
        (
            "fra", [host("alpha", "fra.example.com"), host("fra-zeta")], ["fra-zeta", "alpha"],
            "the same match scores more in the name than in the address"
        ),
        (
            "app", [host("app-1"), host("app-2", connected: 100), host("app-3", connected: 200), host("app-4")],
            ["app-3", "app-2", "app-1", "app-4"], "ties: most recently connected first, then list order"
        ),
        (
            "deploy fra",
            [host("db-ams-1", user: "deploy"), host("db-fra-1", user: "deploy"), host("db-fra-2", user: "root")],
            ["db-fra-1"], "every term must match, each within its own field"
        ),
        ("critical", [host("a"), host("b", tags: ["db", "critical"])], ["b"], "each tag is a field"),
        ("zurich", [host("Zürich-lab"), host("zug")], ["Zürich-lab"], "case and accents are folded"),
        ("ZÜRICH LAB", [host("Zürich-lab")], ["Zürich-lab"], "the query is folded the same way"),
        (
            "fra db",
            [
                host("kafka-bom-1", "kafka.bom.prod.example.com"), host("db-fra-prod-004217"),
                host("db-sfo-1", "db1.sfo.prod.example.com"),
            ],
            ["db-fra-prod-004217", "db-sfo-1"],
            "fuzzy within a field (f-r-a in sfo.prod.example), ranked below whole words"
        ),
        ("", [host("b"), host("a")], ["b", "a"], "an empty query lists everything in list order"),
    ]

    func testRankingTable() {
        for (query, hosts, expected, why) in Self.cases {
            XCTAssertEqual(Fleet(hosts).search(query), expected, "'\(query)': \(why)")
        }
    }

    func testGroupPathIsOneField() {
        let eu = UUID(), us = UUID()
        let fleet = Fleet(
            [Self.host("a", "x.test", group: eu), Self.host("b", "x.test", group: us), Self.host("c", "x.test")],
            groups: [eu: "prod/eu/web", us: "prod/us"])
        XCTAssertEqual(fleet.search("eu/web"), ["a"])
        XCTAssertEqual(fleet.search("prod"), ["a", "b"])
        // A term matching the group and another the name: both hosts of prod, only a's name has "a".
        XCTAssertEqual(fleet.search("prod a"), ["a"])
        // The path and the name are two fields: "weba" would need both.
        XCTAssertEqual(fleet.search("weba"), [])
    }

    func testExactAndPrefixScoresAreOrdered() throws {
        func score(_ term: String, _ field: String) -> Int32? {
            Array(term.utf8).withUnsafeBufferPointer { t in
                Array(field.utf8).withUnsafeBufferPointer { FuzzyScore.score(t, in: $0) }
            }
        }
        let exact = try XCTUnwrap(score("db", "db"))
        let prefix = try XCTUnwrap(score("db", "db-1"))
        let wordStart = try XCTUnwrap(score("db", "x-db"))
        let inside = try XCTUnwrap(score("db", "xdb"))
        let scattered = try XCTUnwrap(score("db", "xdxxxb"))
        XCTAssertGreaterThan(exact, prefix)
        XCTAssertGreaterThan(prefix, wordStart)
        XCTAssertGreaterThan(wordStart, inside)
        XCTAssertGreaterThan(inside, scattered, "a run beats the same letters apart")
        XCTAssertNil(score("bd", "db-1"), "letters out of order")
        XCTAssertNil(score("dbx", "db"), "longer than the field")
    }

    func testHighlightsLandOnTheBestOccurrence() {
        let fleet = Fleet([
            Self.host("db-fra-prod", "db.fra.example.com", user: "deploy", tags: ["db", "critical"]),
            Self.host("Zürich-lab", "lab.zh.example.ch"),
        ])
        let first = fleet.matcher.highlights(0, HostQuery("fra crit"))
        XCTAssertEqual(first.name, [3, 4, 5], "fra: the whole word in the name, not f…r…a scattered")
        XCTAssertEqual(first.tags[1], [0, 1, 2, 3])
        XCTAssertEqual(first.hostname, [])
        let second = fleet.matcher.highlights(1, HostQuery("zur LAB"))
        XCTAssertEqual(second.name, [0, 1, 2], "characters, not bytes: the ü is one")
        XCTAssertEqual(second.hostname, [0, 1, 2], "lab scores more as the host name's prefix than after the '-'")
    }

    func testRefiningAQueryNeverLosesAMatch() {
        let fleet = Fleet(
            (0..<300).map {
                Self.host("host-\($0)", "10.0.\($0 / 10).\($0 % 10)", user: $0 % 2 == 0 ? "root" : "deploy")
            })
        let all = (0..<Int32(300)).map { $0 }
        for (short, long) in [("ro", "root"), ("root", "root 1"), ("host-1", "host-12"), ("h ", "h 3")] {
            XCTAssertTrue(HostQuery(long).refines(HostQuery(short)))
            let fromAll = Set(fleet.matcher.matches(HostQuery(long), in: all).rows)
            let fromShort = Set(
                fleet.matcher.matches(HostQuery(long), in: fleet.matcher.matches(HostQuery(short), in: all).rows).rows)
            XCTAssertEqual(fromAll, fromShort, "\(short) -> \(long)")
        }
        XCTAssertFalse(HostQuery("rot").refines(HostQuery("root")))
    }

    /// A one-character term is scored in one pass that stops early (a name starting with it, or any field start when
    /// no field is one byte long): it must give what scoring every field alone gives, one-letter fields included.
    func testOneCharacterTermsScoreAsEveryFieldAlone() {
        let hosts = [
            Self.host("db-fra-1", "db-1.fra.example.com", user: "deploy", tags: ["db"]),
            Self.host("d", "x.example.com"), Self.host("web-d", "10.0.0.1", user: "d"),
            Self.host("adm", "a.example", tags: ["x", "d"]), Self.host("odd", "odd.example", user: "root"),
            Self.host("x-1", "d.example", user: "a-d"), Self.host("dd", "d", user: "d", tags: ["d"]),
            Self.host("noted", "e.example"),
        ]
        let fleet = Fleet(hosts)
        for term in ["d", "x", "1", "-", ".", "a", "e", "z"] {
            for (row, host) in hosts.enumerated() {
                let fields = [host.name, host.hostname, host.user] + host.tags
                var expected: Int32? = nil
                for (number, field) in fields.enumerated() {
                    let score = Array(term.utf8).withUnsafeBufferPointer { t in
                        Array(field.utf8).withUnsafeBufferPointer { FuzzyScore.score(t, in: $0) }
                    }
                    if let score { expected = max(expected ?? .min, score + (number == 0 ? HostMatcher.nameBonus : 0)) }
                }
                XCTAssertEqual(fleet.matcher.score(row, HostQuery(term)), expected, "'\(term)' in \(host.name)")
            }
        }
    }

    /// The TUI ranks only the first rows of a large result at once: reading them ranks nothing more, and reading on
    /// gives exactly the order of ranking everything (ties, recent connections and candidate order included).
    func testRankingPastTheFirstRowsWaitsUntilTheyAreRead() {
        let names = ["db-%04d", "web-db-%04d", "xdbx-%04d", "d-b-%04d", "db%04d"]
        var hosts: [ShelfCore.Host] = []
        for i in 0..<3000 {
            let name = String(format: names[i % names.count], i)
            let connected: TimeInterval? = i % 97 == 0 ? TimeInterval(i) : nil
            hosts.append(
                Self.host(name, "h\(i % 7).example.com", user: i % 3 == 0 ? "db" : "root", connected: connected))
        }
        let fleet = Fleet(hosts)
        let all = (0..<Int32(hosts.count)).map { $0 }
        for query in ["d", "db", "db 1"] {
            let matches = fleet.matcher.matches(HostQuery(query), in: all)
            let full = fleet.matcher.ranked(matches)
            let lazy = fleet.matcher.rankedLazily(matches, first: 100)
            XCTAssertEqual(lazy.count, full.count, query)
            XCTAssertEqual(Array(lazy.prefix(100)), Array(full.prefix(100)), query)
            XCTAssertEqual(lazy.isComplete, full.count <= 400, "'\(query)': the rest is ranked only when read")
            XCTAssertEqual(Array(lazy), full, query)
            XCTAssertTrue(lazy.isComplete)
            XCTAssertEqual(lazy.firstIndex(of: full[full.count - 1]), full.count - 1)
        }
    }

    func testLargeCandidateSetsGiveTheSameResultsOnTwoCores() {
        let count = HostMatcher.parallelThreshold * 2 + 7
        var builder = HostTableBuilder(expectedCount: count)
        for i in 0..<count { builder.append(Self.host(String(format: "db-%06d", i), "h\(i % 97).example.com")) }
        let matcher = HostMatcher(table: builder.finish(token: []), groupPaths: [])
        let all = (0..<Int32(count)).map { $0 }
        let parallel = matcher.matches(HostQuery("h9"), in: all)
        var oneByOne = HostMatches()
        for row in all {
            if let score = matcher.score(Int(row), HostQuery("h9")) {
                oneByOne.rows.append(row)
                oneByOne.scores.append(score)
            }
        }
        XCTAssertEqual(parallel, oneByOne)
        XCTAssertGreaterThan(parallel.count, 1000)
    }
}
