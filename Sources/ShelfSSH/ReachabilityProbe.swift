// ReachabilityProbe: one TCP handshake to a host's address, timed — resolve the name, a non-blocking connect bounded
// by a timeout, then close at once. Nothing is sent or read (no SSH banner, no credential), so a probe costs the
// server an accepted socket that ends at once.
import Dispatch
import FoundationEssentials
import Glibc
import ShelfCore

public enum ReachabilityProbe {
    /// Connects to `target` (every address the name resolves to, in order, until one answers), closes the socket
    /// at once and says how long the handshake took, or why it failed. `timeout` bounds each address's connect.
    public static func probe(_ target: ProbeTarget, timeout: Double) -> Reachability {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_ADDRCONFIG
        var list: UnsafeMutablePointer<addrinfo>? = nil
        let status = getaddrinfo(target.hostname, String(target.port), &hints, &list)
        guard status == 0, let first = list else {
            // -5 is glibc's EAI_NODATA (the name exists without an address), a GNU extension Swift's Glibc lacks.
            return .down(
                status == EAI_NONAME || status == -5
                    ? .noSuchName
                    : .other(String(cString: gai_strerror(status))))
        }
        defer { freeaddrinfo(list) }
        var failure = ProbeFailure.timeout
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            cursor = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else {
                failure = .other(String(cString: strerror(errno)))
                continue
            }
            let started = DispatchTime.now().uptimeNanoseconds
            let code = handshake(fd, info.pointee.ai_addr, info.pointee.ai_addrlen, timeout: timeout)
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1_000_000
            // An ordinary close: the server reads end-of-file, never a byte.
            close(fd)
            if code == 0 { return .up(milliseconds: elapsed) }
            failure = reason(code)
        }
        return .down(failure)
    }

    /// Probes every target, at most `concurrency` at once, each bounded by `timeout`; the results in the targets'
    /// order.
    public static func probeAll(_ targets: [ProbeTarget], timeout: Double, concurrency: Int = 16) -> [Reachability] {
        final class Results: @unchecked Sendable {
            let lock = Lock()
            var values: [Reachability]
            var next = 0
            init(_ count: Int) { values = Array(repeating: .unknown, count: count) }
        }
        let results = Results(targets.count)
        let workers = min(max(1, concurrency), targets.count)
        guard workers > 0 else { return [] }
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while true {
                results.lock.lock()
                let index = results.next
                results.next += 1
                results.lock.unlock()
                guard index < targets.count else { return }
                let outcome = probe(targets[index], timeout: timeout)
                results.lock.lock()
                results.values[index] = outcome
                results.lock.unlock()
            }
        }
        return results.values
    }

    /// Non-blocking connect bounded by `timeout`; 0 or the errno that ended it.
    private static func handshake(
        _ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: socklen_t,
        timeout: Double
    ) -> Int32 {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        if connect(fd, address, length) == 0 { return 0 }
        guard errno == EINPROGRESS else { return errno }
        var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, timeout) * 1_000_000_000)
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            let remaining = now >= deadline ? 0 : Int32(min(Double(Int32.max), Double(deadline - now) / 1_000_000))
            let ready = poll(&entry, 1, remaining)
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { return ETIMEDOUT }
            break
        }
        var soError: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &size) == 0 else { return errno }
        return soError
    }

    private static func reason(_ code: Int32) -> ProbeFailure {
        switch code {
        case ECONNREFUSED: .refused
        case ETIMEDOUT: .timeout
        case EHOSTUNREACH, ENETUNREACH: .unreachable
        default: .other(String(cString: strerror(code)))
        }
    }
}
