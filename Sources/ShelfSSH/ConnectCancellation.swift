// ConnectCancellation: lets another thread stop a connect attempt at any stage — while the TCP connection is being
// made (the wait also watches a wake-up pipe), or once a hop's socket is open (it is shut down both ways, so every
// blocking libssh2 call on it returns at once and nothing more can be sent). Used by the TUI's Esc.
import Foundation

public final class ConnectCancellation: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false
    private var sockets: Set<Int32> = []
    /// Read end (polled by a connect in progress) and write end of the wake-up pipe.
    let wakeFD: Int32
    private let signalFD: Int32

    public init() {
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            }
        } else {
            fds = [-1, -1]
        }
        wakeFD = fds[0]
        signalFD = fds[1]
    }

    deinit {
        if wakeFD >= 0 { close(wakeFD) }
        if signalFD >= 0 { close(signalFD) }
    }

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
        if signalFD >= 0 {
            var byte: UInt8 = 1
            _ = write(signalFD, &byte, 1)
        }
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
