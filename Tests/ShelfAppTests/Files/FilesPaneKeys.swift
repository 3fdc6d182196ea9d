// FilesPaneKeys: the key sequences the file pane's tmux tests repeat — filter a side and keep the filter, and close
// the pane then quit (the host list seen between, the exit status 0); the release log's lines of the pane's copies.
import Foundation
import TestSupport
import XCTest

extension Tmux {
    /// `/`, the words, Enter: the side with the keys shows only the names holding them, and keeps the filter.
    func filterFiles(_ words: String) throws {
        try send("/")
        try type(words)
        try send("Enter")
    }

    /// q closes the pane (the host list comes back, `hosts` in its status line), q quits, with exit status 0.
    func closeFilesAndQuit(hosts: String = "2 hosts", file: StaticString = #filePath, line: UInt = #line) throws {
        try send("q")
        try waitFor("the host list", file: file, line: line) { $0.contains(hosts) && !$0.contains("this machine:") }
        try send("q")
        XCTAssertEqual(try waitForExit(file: file, line: line), 0, file: file, line: line)
    }
}

extension TempHome {
    /// The release log's lines of the file pane's copies and saves (`by: files`, `copy started` then `copy`), oldest
    /// first.
    func filesCopyLines(file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        let log = try run("log", "--json")
        XCTAssertExit(log, 0, file: file, line: line)
        let entries = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]])
        return entries.filter { $0["by"] as? String == "files" && ($0["what"] as? String)?.hasPrefix("copy") == true }
    }

    /// release.log replaced by a directory: nothing can be appended to it (as on a full disk).
    func breakTheReleaseLog() throws {
        let log = sshelfHome + "/state/release.log"
        try? FileManager.default.removeItem(atPath: log)
        try FileManager.default.createDirectory(atPath: log, withIntermediateDirectories: true)
    }
}
