// ForwardSocket: the plain sockets of a forward — a listening socket on the bind address (with a clear error
// when the port is taken), accepted connections tuned for throughput, and non-blocking connects for -R.
import FoundationEssentials
import Glibc
import ShelfSystem

enum ForwardSocket {
    /// Socket buffers sized to the forward buffers so one read or write moves a whole buffer.
    static let bufferSize: Int32 = 256 * 1024

    /// Listens on `address:port` (every address the name resolves to; `*` means all interfaces). Returns the
    /// sockets and the port actually bound (for port 0).
    static func listen(address: String, port: Int) throws(SSHError) -> (fds: [Int32], port: Int) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE
        var list: UnsafeMutablePointer<addrinfo>? = nil
        let host: String? = address == "*" || address.isEmpty ? nil : address
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw SSHError(
                .invalidConfiguration,
                "cannot resolve the bind address \(address): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var fds: [Int32] = []
        var boundPort = port
        var failure: Int32 = 0
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            cursor = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { continue }
            var one: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            if info.pointee.ai_family == AF_INET6 {
                _ = setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
            }
            // With port 0 every address after the first must take the port the first one got.
            if boundPort != port { setPort(info.pointee.ai_addr, boundPort) }
            guard bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0, Glibc.listen(fd, 512) == 0 else {
                failure = errno
                close(fd)
                continue
            }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            if boundPort == 0 { boundPort = localPort(fd) }
            fds.append(fd)
        }
        guard !fds.isEmpty else {
            let reason = String(cString: strerror(failure))
            if failure == EADDRINUSE {
                throw SSHError(
                    .invalidConfiguration, "port \(port) on \(address) is already in use",
                    hint: "stop what is listening there (ss -ltnp 'sport = :\(port)') or change the rule's port")
            }
            throw SSHError(
                .invalidConfiguration, "cannot listen on \(address) port \(port): \(reason)",
                hint: failure == EACCES ? "ports below 1024 need privileges" : nil)
        }
        return (fds, boundPort)
    }

    /// Accepts one connection (nil when none is waiting), non-blocking, with TCP_NODELAY and large buffers.
    static func accept(_ listener: Int32) -> Int32? {
        let fd = CloseOnExec.accept(listener, nonBlocking: true)
        guard fd >= 0 else { return nil }
        tune(fd)
        return fd
    }

    static func tune(_ fd: Int32) {
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var size = bufferSize
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Starts a non-blocking connect to `host:port` (first address that accepts the attempt). The caller waits
    /// for POLLOUT and calls `finishConnect`.
    static func startConnect(host: String, port: Int) -> Result<Int32, SSHError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>? = nil
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            return .failure(
                SSHError(.resolveFailed, "cannot resolve \(host): \(String(cString: gai_strerror(status)))"))
        }
        defer { freeaddrinfo(list) }
        var failure: Int32 = 0
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            cursor = info.pointee.ai_next
            let fd = socket(
                info.pointee.ai_family,
                Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { continue }
            tune(fd)
            if connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 || errno == EINPROGRESS {
                return .success(fd)
            }
            failure = errno
            close(fd)
        }
        return .failure(
            SSHError(.connectionRefused, "cannot connect to \(host):\(port): \(String(cString: strerror(failure)))"))
    }

    /// 0 when the connect finished, else its errno.
    static func finishConnect(_ fd: Int32) -> Int32 {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length) == 0 else { return errno }
        return code
    }

    static func localPort(_ fd: Int32) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard ok == 0 else { return 0 }
        return withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
    }

    private static func setPort(_ address: UnsafeMutablePointer<sockaddr>?, _ port: Int) {
        guard let address else { return }
        // sin_port and sin6_port sit at the same offset.
        address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_port = UInt16(port).bigEndian }
    }
}
