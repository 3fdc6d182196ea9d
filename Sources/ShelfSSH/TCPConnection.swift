// TCPConnection: opens the TCP socket for an SSH session — every address getaddrinfo returns (IPv6 and IPv4),
// a connect timeout per address, TCP_NODELAY (halves handshake time) and TCP keepalive.
import FoundationEssentials
import Glibc

enum TCPConnection {
    /// `cancellation`: a cancel from another thread ends the wait at once (an error of kind `.cancelled`). `name` is
    /// what the user calls the host (`dead`): errors say it first, with the address after it.
    static func open(
        host: String, port: Int, name: String? = nil, timeout: Double,
        cancellation: ConnectCancellation? = nil
    ) throws(SSHError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_ADDRCONFIG
        var list: UnsafeMutablePointer<addrinfo>? = nil
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            let reason = String(cString: gai_strerror(status))
            throw SSHError(.resolveFailed, "cannot resolve \(host): \(reason)", hint: "check the host's address")
        }
        defer { freeaddrinfo(list) }
        var lastErrno: Int32 = 0
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            cursor = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else {
                lastErrno = errno
                continue
            }
            let code = connect(
                fd: fd, info.pointee.ai_addr, info.pointee.ai_addrlen, timeout: timeout,
                wake: cancellation?.wakeFD ?? -1)
            if code == ECANCELED || cancellation?.isCancelled == true {
                close(fd)
                throw ConnectCancellation.cancelledError()
            }
            if code == 0 {
                tune(fd)
                return fd
            }
            lastErrno = code
            close(fd)
        }
        throw error(for: lastErrno, host: host, port: port, name: name, timeout: timeout)
    }

    /// Non-blocking connect bounded by `timeout`; returns 0 or the errno that ended it (ECANCELED when `wake`
    /// became readable: a cancel).
    private static func connect(
        fd: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: socklen_t,
        timeout: Double, wake: Int32
    ) -> Int32 {
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        defer { _ = fcntl(fd, F_SETFL, flags) }
        if Glibc.connect(fd, address, length) == 0 { return 0 }
        guard errno == EINPROGRESS else { return errno }
        // A negative descriptor is ignored by poll: without a wake-up pipe only the socket is watched.
        var fds = [
            pollfd(fd: fd, events: Int16(POLLOUT), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
        ]
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let remaining = Int32(max(0, deadline.timeIntervalSinceNow * 1000))
            let ready = poll(&fds, 2, remaining)
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { return ETIMEDOUT }
            if fds[1].revents != 0 { return ECANCELED }
            break
        }
        var soError: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &size) == 0 else { return errno }
        return soError
    }

    static func tune(_ fd: Int32) {
        var on: Int32 = 1
        let size = socklen_t(MemoryLayout<Int32>.size)
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, size)
        _ = setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, size)
    }

    /// The host by its name, the address and the system's words after it: "dead refused the connection
    /// ([127.0.0.1]:2299: Connection refused)".
    static func error(for code: Int32, host: String, port: Int, name: String?, timeout: Double) -> SSHError {
        let address = KnownHostsFile.lookupName(host: host, port: port)
        let target = name ?? address
        let system = String(cString: strerror(code))
        let detail = target == address ? system : "\(address): \(system)"
        switch code {
        case ECONNREFUSED:
            return SSHError(
                .connectionRefused, "\(target) refused the connection (\(detail))",
                hint: "is sshd running there, and is the port right?")
        case ETIMEDOUT:
            return SSHError(
                .timedOut,
                "connecting to \(target) timed out after \(Int(timeout)) s"
                    + (target == address ? "" : " (\(address))"),
                hint: "the host may be down or a firewall drops the connection")
        case EHOSTUNREACH, ENETUNREACH:
            return SSHError(
                .unreachable, "no route to \(target) (\(detail))",
                hint: "check the network and the address")
        default:
            return SSHError(.network, "cannot connect to \(target) (\(detail))")
        }
    }
}
