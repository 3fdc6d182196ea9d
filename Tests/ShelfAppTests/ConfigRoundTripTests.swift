// ConfigRoundTripTests: properties over generated configs (several names per Host line, names that resolve alike
// and ones that do not, pattern blocks with negations carrying User, Port, options and forwards), through the real
// binary and the real ssh: import → export → import is a fixed point, and for every name of the original file
// `ssh -G` on the export says what it says on the original.
import Foundation
import ShelfCore
import TestSupport
import XCTest

final class ConfigRoundTripTests: XCTestCase {
    /// A config of `blocks` hosts from `seed`, and every literal name in it.
    static func generate(seed: UInt64, blocks: Int) -> (text: String, names: [String]) {
        var random = SplitMix64(state: seed)
        var text = "# generated config, seed \(seed)\n"
        var names: [String] = []
        var separate: [String] = []
        for block in 0..<blocks {
            let count = 1 + random.below(3)
            let line = (0..<count).map { "h\(block)\(["a", "b", "c"][$0])" }
            names += line
            text += "\nHost \(line.joined(separator: " "))\n    HostName 10.0.\(block / 200).\(block % 200 + 1)\n"
            if random.below(3) > 0 { text += "    User \(random.pick(["deploy", "ops", "root"]))\n" }
            if random.below(3) == 0 { text += "    Port \(2200 + random.below(50))\n" }
            if random.below(2) == 0 {
                text += "    LocalForward 127.0.0.1:\(20_000 + block) localhost:\(80 + random.below(10))\n"
            }
            if random.below(3) == 0 { text += "    ServerAliveInterval \(10 + random.below(50))\n" }
            // Now and then a second name gets a block of its own: it no longer resolves as the first does.
            if count > 1, random.below(4) == 0 { separate.append(line[1]) }
        }
        for name in separate { text += "\nHost \(name)\n    Port 2999\n    Compression yes\n" }
        text += """

            Host h1* !h1b
                User pattern-user
                Port 2345
                Compression no
                LocalForward 127.0.0.1:19999 localhost:9999
            Host *
                ServerAliveCountMax 5
                ServerAliveInterval 90

            """
        return (text, names)
    }

    static let keys = [
        "hostname", "user", "port", "localforward", "serveraliveinterval", "serveralivecountmax", "compression",
    ]

    /// What `ssh -G` says of `name` in `file`, for the keys the generator writes (lines sorted: forwards are a set).
    func sshG(_ file: String, _ name: String) throws -> [String] {
        let out = try Shell.run(TestTool.ssh.path, ["-F", file, "-G", name])
        return out.split(separator: "\n").map(String.init)
            .filter { line in Self.keys.contains { line.hasPrefix($0 + " ") } }.sorted()
    }

    func testImportExportImportIsAFixedPointAndSshAgreesOnEveryName() throws {
        for seed in [1, 2, 3] as [UInt64] {
            let (config, names) = Self.generate(seed: seed, blocks: 14)
            let home = TempHome()
            let original = try home.write(config, to: ".ssh/config")
            XCTAssertExit(try home.run("import", "ssh-config", original), 0)
            let first = try home.run("export", "ssh-config")
            XCTAssertExit(first, 0)
            let exported = try home.write(first.stdout, to: "exported")
            for name in names {
                XCTAssertEqual(
                    try sshG(exported, name), try sshG(original, name),
                    "seed \(seed), \(name)\n\(config)\n\(first.stdout)")
            }
            // The export imported into the same store changes nothing; into a new one, it exports the same again.
            let again = try home.run("import", "ssh-config", exported)
            XCTAssertTrue(again.stdout.contains(" 0 added, 0 updated, "), "seed \(seed): \(again.stdout)")
            XCTAssertFalse(again.stdout.contains("forward rule"), "seed \(seed): \(again.stdout)")
            let other = TempHome()
            XCTAssertExit(try other.run("import", "ssh-config", try other.write(first.stdout, to: "exported")), 0)
            let second = try other.run("export", "ssh-config")
            XCTAssertEqual(second.stdout, first.stdout, "seed \(seed)")
            XCTAssertEqual(try other.run("list", "--names").stdout, try home.run("list", "--names").stdout)
        }
    }
}
