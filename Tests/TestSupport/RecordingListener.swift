// RecordingListener: a loopback server that accepts one connection and never says a word, recording what the
// client sends and whether it closed the socket — for proving what a cancelled connect did and did not send.
import Foundation

public final class RecordingListener: @unchecked Sendable {
    public let port: Int
    private let fd: Int32
    private let lock = NSLock()
    private var bytes: [UInt8] = []
    private var ended = false

    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr)
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, 4) == 0 else {
            close(fd)
            throw HarnessError("cannot listen on 127.0.0.1")
        }
        var actual = sockaddr_in()
        var actualLength = length
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &actualLength) }
        }
        port = Int(UInt16(bigEndian: actual.sin_port))
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    deinit { close(fd) }

    /// What the client sent so far, as text.
    public var received: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether the client closed its end.
    public var closed: Bool {
        lock.lock()
        defer { lock.unlock() }
        return ended
    }

    private func serve() {
        let client = accept(fd, nil, nil)
        guard client >= 0 else { return }
        defer { close(client) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(client, &buffer, buffer.count)
            lock.lock()
            if n > 0 { bytes += buffer[0..<n] } else { ended = true }
            lock.unlock()
            if n <= 0 { return }
        }
    }
}
