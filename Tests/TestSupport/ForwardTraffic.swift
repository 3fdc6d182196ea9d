// ForwardTraffic: real TCP traffic for the forward tests — a target server that reads until EOF and then answers
// with the input reversed (so a reply proves half-close worked and data moved both ways), a client that sends a
// payload, shuts its write side and reads the reply, and SHA-256 through the system's sha256sum.
import Foundation

public final class ReverseServer: @unchecked Sendable {
    public let port: Int
    public let address: String
    private let listener: Int32
    private let lock = NSLock()
    private var served = 0
    private var stopped = false

    public var connectionsServed: Int {
        lock.lock()
        defer { lock.unlock() }
        return served
    }

    public init(address: String = "127.0.0.1") throws {
        self.address = address
        let family = address.contains(":") ? AF_INET6 : AF_INET
        listener = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw HarnessError("socket() failed") }
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard TrafficSocket.bind(listener, address: address, port: 0), Glibc.listen(listener, 256) == 0 else {
            close(listener)
            throw HarnessError("bind/listen on \(address) failed: \(String(cString: strerror(errno)))")
        }
        port = TrafficSocket.localPort(listener)
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    deinit { stop() }

    public func stop() {
        lock.lock()
        let already = stopped
        stopped = true
        lock.unlock()
        if !already {
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
        }
    }

    private func acceptLoop() {
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                return
            }
            Thread { [self] in
                TrafficSocket.setTimeout(fd)
                let input = TrafficSocket.readAll(fd)
                TrafficSocket.writeAll(fd, Array(input.reversed()))
                close(fd)
                lock.lock()
                served += 1
                lock.unlock()
            }.start()
        }
    }
}

public enum TrafficSocket {
    /// Connects to `address:port` (blocking, with a long receive timeout so a broken forward fails the test).
    public static func connect(port: Int, address: String = "127.0.0.1") throws -> Int32 {
        let family = address.contains(":") ? AF_INET6 : AF_INET
        let fd = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket() failed") }
        setTimeout(fd)
        var storage = sockaddr_storage()
        let length = fill(&storage, address: address, port: port)
        let code = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, length) }
        }
        guard code == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw HarnessError("connect to \(address):\(port) failed: \(reason)")
        }
        return fd
    }

    /// Sends `payload` from a second thread, shuts the write side, and returns everything read until EOF.
    public static func exchange(_ fd: Int32, _ payload: [UInt8]) -> [UInt8] {
        let done = DispatchSemaphore(value: 0)
        Thread {
            writeAll(fd, payload)
            shutdown(fd, Int32(SHUT_WR))
            done.signal()
        }.start()
        let reply = readAll(fd)
        done.wait()
        return reply
    }

    /// Connect, exchange, close.
    public static func roundTrip(port: Int, _ payload: [UInt8]) throws -> [UInt8] {
        let fd = try connect(port: port)
        defer { close(fd) }
        return exchange(fd, payload)
    }

    public static func readAll(_ fd: Int32) -> [UInt8] {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                result += chunk[0..<count]
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                return result
            }
        }
    }

    public static func readExactly(_ fd: Int32, _ count: Int) -> [UInt8] {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: count)
        while result.count < count {
            let got = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, count - result.count) }
            if got > 0 { result += chunk[0..<got] } else if got < 0 && errno == EINTR { continue } else { break }
        }
        return result
    }

    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        bytes.withUnsafeBytes { buffer in
            while offset < buffer.count {
                let written = send(fd, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                if written > 0 { offset += written } else if written < 0 && errno == EINTR { continue } else { return }
            }
        }
    }

    /// A limit on each blocking read and write, so a broken forward fails the test instead of hanging it; long
    /// (a loaded machine is slow, not broken) and stretched with the other deadlines.
    public static func setTimeout(_ fd: Int32, seconds: TimeInterval = Deadline.long) {
        var time = timeval(tv_sec: Int(Deadline.scaled(seconds)), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
    }

    static func bind(_ fd: Int32, address: String, port: Int) -> Bool {
        var storage = sockaddr_storage()
        let length = fill(&storage, address: address, port: port)
        return withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, length) }
        } == 0
    }

    static func fill(_ storage: inout sockaddr_storage, address: String, port: Int) -> socklen_t {
        if address.contains(":") {
            return withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                    pointer.pointee.sin6_family = sa_family_t(AF_INET6)
                    pointer.pointee.sin6_port = UInt16(port).bigEndian
                    inet_pton(AF_INET6, address, &pointer.pointee.sin6_addr)
                    return socklen_t(MemoryLayout<sockaddr_in6>.size)
                }
            }
        }
        return withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                pointer.pointee.sin_family = sa_family_t(AF_INET)
                pointer.pointee.sin_port = UInt16(port).bigEndian
                inet_pton(AF_INET, address, &pointer.pointee.sin_addr)
                return socklen_t(MemoryLayout<sockaddr_in>.size)
            }
        }
    }

    static func localPort(_ fd: Int32) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
    }

    /// A free TCP port on loopback for a forward to listen on (see TestPorts).
    public static func freePort() throws -> Int { try TestPorts.free("127.0.0.1") }
}

public enum Payload {
    /// `count` random bytes.
    public static func random(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { buffer in
            let words = buffer.bindMemory(to: UInt64.self)
            for index in words.indices { words[index] = generator.next() }
        }
        return bytes
    }

    /// SHA-256 in hex, by the system's sha256sum (independent of the code under test).
    public static func sha256(_ bytes: [UInt8]) throws -> String {
        let process = Process()
        process.executableURL = TestTool.sha256sum.url
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let writer = Thread {
            input.fileHandleForWriting.write(Data(bytes))
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(String(decoding: data, as: UTF8.self).prefix(64))
    }
}
