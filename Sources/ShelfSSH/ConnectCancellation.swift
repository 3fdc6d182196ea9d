// ConnectCancellation: lets another thread stop a connect attempt at any stage — while the TCP connection is being
// made (the wait also watches a wake-up pipe), or once a hop's socket is open (it is shut down both ways, so every
// blocking libssh2 call on it returns at once and nothing more can be sent). Used by the TUI's Esc.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfSystem

public final class ConnectCancellation: @unchecked Sendable {
    private let lock = Lock()
    private var cancelled = false
    private var sockets: Set<Int32> = []
    /// Polled by a connect in progress; signalled by `cancel()`.
    private let wake = WakePipe()
    var wakeFD: Int32 { wake.readEnd }

    public init() {}

    public var isCancelled: Bool {
        lock.lock()
        defer { lock.unlock() }
        return cancelled
    }

    /// Stops the attempt: wakes a TCP connect that is waiting and shuts down every socket opened so far. The
    /// connect flow then fails with an error of kind `.cancelled`. Safe to call from any thread, more than once.
    public func cancel() {
        lock.lock()
        defer { lock.unlock() }
        guard !cancelled else { return }
        cancelled = true
        wake.signal()
        for fd in sockets { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    /// A hop's socket, shut down on `cancel()` (at once when the attempt was cancelled already).
    func register(_ fd: Int32) {
        lock.lock()
        defer { lock.unlock() }
        if cancelled { shutdown(fd, Int32(SHUT_RDWR)) } else { sockets.insert(fd) }
    }

    /// The attempt is over (connected or failed): its sockets belong to the connection now, or are closed and
    /// their numbers free for reuse, so a late `cancel()` must not touch them.
    func finish() {
        lock.lock()
        sockets.removeAll()
        lock.unlock()
    }

    static func cancelledError() -> SSHError { SSHError(.cancelled, "cancelled") }
}
