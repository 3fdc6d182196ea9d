// Crash hygiene: a running sshelf may hold credentials in memory, so it can never write a core file — the
// core-size limit is 0, soft and hard (a child could not raise it again), read from the live process.
import Foundation
import TestSupport
import XCTest

final class CrashHygieneTests: XCTestCase {
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
        var limits = ""
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            limits = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/limits", encoding: .utf8)) ?? ""
            // The limit is set first thing in main; wait until the process is past start-up (it reads stdin then).
            if limits.contains("Max core file size"), let row = limits.split(separator: "\n").first(where: { $0.hasPrefix("Max core file size") }),
               row.split(separator: " ", omittingEmptySubsequences: true).dropFirst(4).prefix(2) == ["0", "0"] {
                break
            }
            usleep(50_000)
        }
        let row = try XCTUnwrap(limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") }, limits)
        XCTAssertEqual(Array(row.split(separator: " ", omittingEmptySubsequences: true).dropFirst(4).prefix(2)), ["0", "0"], String(row))
    }
}
