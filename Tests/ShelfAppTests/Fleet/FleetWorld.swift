// FleetWorld: a TempHome with one or more real sshd and several host entries pointing at them (same account, same
// key), their keys trusted — what the `run` and `cp` tests start from — and a way to run sshelf in the background
// and signal it.
import Foundation
import ShelfCore
import TestSupport
import XCTest

final class FleetWorld {
    let cli: SSHCLIWorld
    var home: TempHome { cli.home }
    var sshd: SSHD { cli.sshd }
    /// A directory the remote account (TestAccount) can write to, for marker files.
    let shared: String

    /// `names` on the first sshd, in group `prod`, their host key trusted.
    init(_ names: [String] = ["a", "b"], group: String = "prod", options: SSHD.Options = SSHD.Options()) throws {
        cli = try SSHCLIWorld(options: options)
        shared = cli.home.root + "/shared"
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        chmod(shared, 0o777)
        for name in names { try add(name, on: cli.sshd, group: group) }
        // Every entry points at the same sshd: trusting one puts its key in known_hosts for all.
        XCTAssertExit(try cli.home.run("trust", names[0], "--fingerprint", try cli.fingerprint(cli.sshd)), 0)
    }

    func add(_ name: String, on server: SSHD, group: String? = "prod") throws {
        try cli.addHost(name, server)
        if let group { XCTAssertExit(try home.run("edit", name, "--group", group), 0) }
    }

    /// Another sshd taking the same key, with `names` on it (in group prod), its host key trusted.
    func secondServer(_ names: [String]) throws -> SSHD {
        var options = SSHD.Options()
        options.authorizedKeys = [cli.key.publicLine]
        let server = try SSHD.start(options)
        for name in names { try add(name, on: server) }
        XCTAssertExit(try home.run("trust", names[0], "--fingerprint", try cli.fingerprint(server)), 0)
        return server
    }

    /// Each line of `--json` output as a dictionary, by host name.
    static func jsonLines(_ text: String) throws -> [String: [String: Any]] {
        var hosts: [String: [String: Any]] = [:]
        for line in text.split(separator: "\n") {
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            hosts[try XCTUnwrap(object["name"] as? String)] = object
        }
        return hosts
    }

    /// The release log's `run` entries.
    func runEntries() throws -> [[String: Any]] {
        let log = try home.run("log", "--json")
        XCTAssertExit(log, 0)
        let entries = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]])
        return entries.filter { $0["by"] as? String == "run" && $0["what"] as? String == "run" }
    }

    static func sha256(_ text: String) -> String {
        "sha256:" + Digest.sha256(Array(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}

/// sshelf running in the background, its stdout and stderr in files the test reads while it runs.
final class BackgroundSshelf {
    let process: SpawnedProcess
    let outputPath: String
    let errorPath: String

    init(_ home: TempHome, _ arguments: [String]) throws {
        let stamp = UUID().uuidString.prefix(8)
        outputPath = home.root + "/bg-\(stamp).out"
        errorPath = home.root + "/bg-\(stamp).err"
        process = try SpawnedProcess(
            CLI.binary, arguments, environment: home.environment, output: outputPath, errors: errorPath)
    }

    var stdout: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }

    func interrupt() { kill(process.pid, SIGINT) }
}
