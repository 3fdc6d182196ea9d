// FilesPaneKeys: the key sequences the file pane's tmux tests repeat — filter a side and keep the filter, and close
// the pane then quit (the host list seen between, the exit status 0).
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
