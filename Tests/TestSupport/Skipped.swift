// Skipped: a test skips with `throw skipped("why")`, never XCTSkip alone — parallel swift test's xUnit report has
// no place for a skip, so scripts/run-tests counted every skipped test as passed. The reason goes, with the test's
// name, to the file SSHELF_SKIP_LOG names (run-tests sets it), and run-tests counts and lists those lines.
import Foundation
import XCTest

extension XCTestCase {
    /// The XCTSkip to throw, recorded for run-tests' summary.
    public func skipped(_ reason: String, file: StaticString = #filePath, line: UInt = #line) -> XCTSkip {
        if let log = ProcessInfo.processInfo.environment["SSHELF_SKIP_LOG"], !log.isEmpty {
            // One write of one line to a file opened for appending: lines of parallel workers never interleave.
            let text =
                "  \(name.trimmingCharacters(in: CharacterSet(charactersIn: "-[]"))): "
                + reason.replacingOccurrences(of: "\n", with: " ") + "\n"
            let fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
            if fd >= 0 {
                _ = Array(text.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                close(fd)
            }
        }
        return XCTSkip(reason, file: file, line: line)
    }

    /// Skips when `condition` holds.
    public func skip(if condition: Bool, _ reason: String, file: StaticString = #filePath, line: UInt = #line) throws {
        if condition { throw skipped(reason, file: file, line: line) }
    }
}
