// KnownHostsCacheTests: the known_hosts entries a warm keeper checks its host key against before every command are
// parsed again whenever the file changes — a line appended in the same second (same inode), a file replaced by a
// rename, a file removed or made — and not otherwise.
import Foundation
import TestSupport
import XCTest

@testable import ShelfSSH

final class KnownHostsCacheTests: XCTestCase {
    private let line = "a.example ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\n"

    func testAChangedFileIsReadAgain() throws {
        let home = TempHome()
        let path = home.root + "/known_hosts"
        let cache = KnownHostsCache()
        XCTAssertEqual(cache.entries(path)?.count, 0, "a missing file vouches for nothing")

        try Data(line.utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(cache.entries(path)?.count, 1)
        XCTAssertEqual(cache.entries(path)?.count, 1, "unchanged: the same entries")

        // Appended at once (the same inode, very likely the same second): the new line is seen.
        let file = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        try file.seekToEnd()
        try file.write(contentsOf: Data(("@revoked * " + line.split(separator: " ", maxSplits: 1)[1]).utf8))
        try file.close()
        XCTAssertEqual(cache.entries(path)?.map(\.marker), [nil, .revoked])

        // Replaced by a rename (how sshelf writes its own known_hosts): the new file's entries.
        try Data(line.utf8).write(to: URL(fileURLWithPath: path + ".new"))
        XCTAssertEqual(rename(path + ".new", path), 0)
        XCTAssertEqual(cache.entries(path)?.map(\.marker), [nil])

        XCTAssertEqual(unlink(path), 0)
        XCTAssertEqual(cache.entries(path)?.count, 0, "removed: nothing")
    }
}
