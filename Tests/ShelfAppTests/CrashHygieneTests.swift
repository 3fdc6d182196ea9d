// Crash hygiene: a running sshelf may hold credentials in memory, so it can never write a core file — the
// core-size limit is 0, soft and hard (a child could not raise it again), read from the live process.
import Foundation
import TestSupport
import XCTest

final class CrashHygieneTests: XCTestCase {
    /// The soft and hard limits of a /proc/PID/limits row ("Max core file size  0  0  bytes").
    private static func softAndHard(_ row: String) -> [String] {
        Array(row.split(separator: " ", omittingEmptySubsequences: true).dropFirst(4).prefix(2).map(String.init))
    }

    func testCoreDumpsAreOffInARunningProcess() throws {
        let home = TempHome()
        home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1"]
        XCTAssertExit(try home.run("vault", "init"), 0)
        // `vault passwd` waits on its descriptor for the passphrase: a process that is up and holding the vault.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLI.binary)
        process.arguments = ["vault", "passwd", "--passphrase-fd", "0"]
        process.environment = home.environment
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
        // The limit is set first thing in main: wait until the process has got that far (it then reads stdin).
        let row = try eventually(
            "a core file size limit of 0 0",
            observe: { () -> String in
                let limits =
                    (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/limits", encoding: .utf8)) ?? ""
                return limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") }.map(String.init)
                    ?? limits
            }, until: { $0.hasPrefix("Max core file size") && Self.softAndHard($0) == ["0", "0"] })
        XCTAssertEqual(Self.softAndHard(row), ["0", "0"], row)
    }
}
