// CloseOnExecTests: a pipe, an accepted connection and a copy made through CloseOnExec are close-on-exec as they come
// back (non-blocking when asked), and a child started by a plain spawn — one that closes nothing for us — does not
// hold any of them.
import Foundation
import Glibc
import ShelfSystem
import TestSupport
import XCTest

final class CloseOnExecTests: XCTestCase {
    private func isCloseOnExec(_ fd: Int32) -> Bool { fcntl(fd, F_GETFD) & FD_CLOEXEC != 0 }
    private func isNonBlocking(_ fd: Int32) -> Bool { fcntl(fd, F_GETFL) & O_NONBLOCK != 0 }

    private func inode(_ fd: Int32) -> UInt {
        var info = stat()
        return fstat(fd, &info) == 0 ? UInt(info.st_ino) : 0
    }

    /// A listening unix socket, a client connected to it and the accepted end.
    private func connectedPair(in directory: String) throws -> (listener: Int32, client: Int32, accepted: Int32) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array((directory + "/listen").utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.enumerated() { raw[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        let client = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
        }
        XCTAssertEqual(bound, 0)
        XCTAssertEqual(listen(listener, 1), 0)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, length) }
        }
        XCTAssertEqual(connected, 0)
        let accepted = CloseOnExec.accept(listener)
        XCTAssertGreaterThanOrEqual(accepted, 0, String(cString: strerror(errno)))
        return (listener, client, accepted)
    }

    func testDescriptorsAreCloseOnExecAndNoChildInheritsThem() throws {
        let home = TempHome()
        let directory = home.root
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var pipeEnds: [Int32] = [-1, -1]
        XCTAssertEqual(CloseOnExec.pipe(&pipeEnds, nonBlocking: true), 0)
        var blocking: [Int32] = [-1, -1]
        XCTAssertEqual(CloseOnExec.pipe(&blocking), 0)
        let (listener, client, accepted) = try connectedPair(in: directory)
        let copy = CloseOnExec.duplicate(accepted)
        defer { for fd in pipeEnds + blocking + [listener, client, accepted, copy] { close(fd) } }

        for fd in pipeEnds + blocking + [accepted, copy] {
            XCTAssertTrue(isCloseOnExec(fd), "descriptor \(fd) is close-on-exec")
        }
        XCTAssertTrue(pipeEnds.allSatisfy(isNonBlocking))
        XCTAssertFalse(blocking.contains(where: isNonBlocking), "non-blocking only when asked")
        XCTAssertFalse(isNonBlocking(accepted))

        // The child lists what it holds; posix_spawn with no file actions closes nothing of ours for it.
        let listing = directory + "/child-fds"
        let argv = [TestTool.sh.path, "-c", "ls -l /proc/self/fd/ > \(listing)"]
        var cArgv = argv.map { strdup($0) } + [nil]
        defer { for pointer in cArgv { free(pointer) } }
        var pid: pid_t = 0
        XCTAssertEqual(posix_spawn(&pid, argv[0], nil, nil, &cArgv, environ), 0)
        var status: Int32 = 0
        XCTAssertEqual(waitpid(pid, &status, 0), pid)
        let held = try String(contentsOfFile: listing, encoding: .utf8)
        XCTAssertTrue(held.contains("/proc/"), "the child listed its descriptors: \(held)")
        for (name, fd) in [("pipe", pipeEnds[0]), ("pipe", blocking[1]), ("socket", accepted)] {
            XCTAssertFalse(held.contains("\(name):[\(inode(fd))]"), "the child holds our \(name): \(held)")
        }
    }
}
