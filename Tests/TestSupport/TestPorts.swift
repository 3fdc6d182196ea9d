// TestPorts: TCP ports for servers the tests start (sshd, a forward's listening side). A port the kernel hands
// out for port 0 comes from its range for outgoing connections, so between our check and the server's bind any
// connection on the machine may take it (under a parallel run there are hundreds). These ports come from below
// that range, where only another test's choice can compete: each process walks its own random stretch of it,
// and a port handed out is reserved for the process's lifetime by an flock on a file named after it, so parallel
// test processes never hand out the same port (a server started a moment later would find it taken).
import Foundation

public enum TestPorts {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var next = 0

    /// The range below the kernel's ephemeral ports (net.ipv4.ip_local_port_range), leaving the well-known ports.
    static let range: Range<Int> = {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        let low =
            text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).first.flatMap { Int($0) } ?? 32768
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
            guard reserve(candidate) else { continue }
            if (try? SilentListener(address, port: candidate)) != nil { return candidate }
        }
        throw HarnessError("no free port on \(address) in \(range)")
    }

    /// Where the reservations live: one directory for every test process of this machine.
    static let reservations: String = {
        let path = "/tmp/sshelf-test-ports"
        mkdir(path, 0o1777)
        return path
    }()

    /// Takes the port for this process: an exclusive flock on `<port>.lock`, held (the descriptor stays open) until
    /// the process ends, when the kernel lets go of it — nothing to clean up after a crash. False when another
    /// process holds it.
    static func reserve(_ port: Int) -> Bool {
        let fd = open(reservations + "/\(port).lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o666)
        guard fd >= 0 else { return true }  // no place to reserve: fall back to the bind check alone
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            return false
        }
        return true
    }
}
