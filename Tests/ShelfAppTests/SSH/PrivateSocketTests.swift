// PrivateSocketTests: a listening socket is 0600 in a 0700 folder whatever the umask, and listening never changes
// the process-wide umask, not even for a moment (a file another thread creates meanwhile would get the wrong mode).
import Foundation
import Glibc
import ShelfCore
import TestSupport
import XCTest

@testable import ShelfServices

final class PrivateSocketTests: XCTestCase {
    private func mode(_ path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o7777 : nil
    }

    /// The umask as the kernel reports it (reading it with umask(2) would set it).
    private static func currentUmask() -> String? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        return status.split(separator: "\n").first { $0.hasPrefix("Umask:") }.map {
            $0.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces)
        }
    }

    func testTheSocketIs0600InA0700FolderWhateverTheUmask() throws {
        let home = TempHome()
        for mask: mode_t in [0o000, 0o022, 0o077] {
            let previous = umask(mask)
            defer { umask(previous) }
            let directory = home.root + "/run-\(String(mask, radix: 8))"
            let path = directory + "/socket"
            let (fd, inode) = try PrivateSocket.listen(at: path, directory: directory, within: directory)
            defer { close(fd) }
            XCTAssertEqual(mode(path).map { $0 & 0o777 }, 0o600, "socket under umask \(String(mask, radix: 8))")
            XCTAssertEqual(mode(directory), 0o700, "folder under umask \(String(mask, radix: 8))")
            XCTAssertTrue(PrivateSocket.ownsPath(path, inode: inode))
            XCTAssertEqual(umask(mask), mask, "listen left the umask as it was")
        }
    }

    /// Another thread watches the umask (through /proc, which only reads it) while this one listens again and again:
    /// it must never see anything but the test's own.
    func testListeningNeverChangesTheUmaskMeanwhile() throws {
        let home = TempHome()
        let previous = umask(0o002)
        defer { umask(previous) }
        XCTAssertEqual(Self.currentUmask(), "0002")
        let seen = Seen()
        let watcher = Thread {
            while !seen.done {
                if let mask = Self.currentUmask(), mask != "0002" { seen.add(mask) }
            }
        }
        watcher.start()
        for round in 0..<300 {
            let directory = home.root + "/run"
            let (fd, _) = try PrivateSocket.listen(
                at: directory + "/socket-\(round % 4)", directory: directory, within: directory)
            close(fd)
        }
        seen.done = true
        XCTAssertEqual(seen.masks, [], "the umask another thread saw while sockets were made")
    }
}

private final class Seen: @unchecked Sendable {
    private let lock = NSLock()
    private var found: Set<String> = []
    private var finished = false
    var done: Bool {
        get { lock.withLock { finished } }
        set { lock.withLock { finished = newValue } }
    }
    func add(_ mask: String) { lock.withLock { _ = found.insert(mask) } }
    var masks: Set<String> { lock.withLock { found } }
}
