// UnixSocketTraffic: a unix-socket server that answers each connection with its input reversed (the
// ReverseServer of a socket path), and a client round trip — the far ends of unix-socket forwards in tests.
import Foundation

public final class UnixReverseServer: @unchecked Sendable {
    public let path: String
    private let listener: Int32

    /// Listens at `path` (removed first; at most 107 bytes, the kernel's limit).
    public init(path: String) throws {
        self.path = path
        unlink(path)
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw HarnessError("socket(AF_UNIX) failed") }
        guard UnixSocket.withAddress(path, { bind(listener, $0, $1) }) == 0, listen(listener, 64) == 0 else {
            close(listener)
            throw HarnessError("bind/listen on \(path) failed: \(String(cString: strerror(errno)))")
        }
        // The login user of the test sshd (not this process's) connects to it.
        chmod(path, 0o777)
        Thread { [self] in acceptLoop() }.start()
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        unlink(path)
    }

    private func acceptLoop() {
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                return
            }
            Thread {
                TrafficSocket.setTimeout(fd)
                let input = TrafficSocket.readAll(fd)
                TrafficSocket.writeAll(fd, Array(input.reversed()))
                close(fd)
            }.start()
        }
    }
}

public enum UnixSocket {
    /// Calls `body` with `path` as a sockaddr_un.
    static func withAddress(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return -1 }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                body($0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }

    /// Sends `payload` to the socket at `path`, half-closes, and returns all it answers.
    public static func roundTrip(path: String, _ payload: [UInt8]) throws -> [UInt8] {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket(AF_UNIX) failed") }
        defer { close(fd) }
        guard withAddress(path, { connect(fd, $0, $1) }) == 0 else {
            throw HarnessError("connect to \(path) failed: \(String(cString: strerror(errno)))")
        }
        TrafficSocket.setTimeout(fd)
        return TrafficSocket.exchange(fd, payload)
    }
}
