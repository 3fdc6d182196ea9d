// TestPorts: TCP ports for servers the tests start (sshd, a forward's listening side). A port the kernel hands
// out for port 0 comes from its range for outgoing connections, so between our check and the server's bind any
// connection on the machine may take it (under a parallel run there are hundreds). These ports come from below
// that range, where only another test's choice can compete: each process walks its own random stretch of it.
import Foundation

public enum TestPorts {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var next = 0

    /// The range below the kernel's ephemeral ports (net.ipv4.ip_local_port_range), leaving the well-known ports.
    static let range: Range<Int> = {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        let low = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).first.flatMap { Int($0) } ?? 32768
        return 10_000..<max(low, 10_001)
    }()

    /// A port nothing listens on now and the kernel will not give to an outgoing connection: checked by binding it
    /// (the check is closed again at once, for the server to take).
    public static func free(_ address: String = "127.0.0.1") throws -> Int {
        lock.lock()
        defer { lock.unlock() }
        if next == 0 { next = Int.random(in: range) }
        for _ in 0..<range.count {
            let candidate = next
            next = range.contains(next + 1) ? next + 1 : range.lowerBound
            if (try? SilentListener(address, port: candidate)) != nil { return candidate }
        }
        throw HarnessError("no free port on \(address) in \(range)")
    }
}
