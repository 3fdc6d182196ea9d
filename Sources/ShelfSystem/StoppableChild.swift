// StoppableChild: a child told to stop with a signal it may miss, told again until it has ended. OpenSSH's ssh
// before 9.3 checks its quit flag and then sleeps in poll(), not ppoll(): a SIGTERM landing between the two is
// seen only at its next event — with `ssh -N` and a quiet connection, never (a `forward start --openssh` stopped by
// a script stayed up for good). Its pid is never signalled once reaped: the wait marks the end while the child is
// still a zombie holding that pid, and reaps it after.
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

public final class StoppableChild: @unchecked Sendable {
    public let pid: pid_t
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var ended = false
    private var stopping = false

    public init(pid: pid_t) {
        self.pid = pid
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// True once `stop` was called.
    public var wasStopped: Bool { locked { stopping } }

    /// Sends `signal` now, again every `interval` while the child runs, and SIGKILL once `patience` has passed
    /// (a program that ignores its stop for that long is stuck, and the user asked for it to end). Returns at once.
    public func stop(
        _ signal: Int32 = SIGTERM, every interval: Duration = .milliseconds(500),
        killAfter patience: Duration = .seconds(10)
    ) {
        let first = locked { () -> Bool in
            defer { stopping = true }
            if !ended { kill(pid, signal) }
            return !stopping && !ended
        }
        guard first else { return }
        BackgroundThread.start(name: "stop-child") { [self] in
            var waited = Duration.zero
            while waited < patience {
                Self.sleep(interval)
                waited += interval
                if locked({ () -> Bool in
                    if !ended { kill(pid, signal) }
                    return ended
                }) {
                    return
                }
            }
            locked { if !ended { kill(pid, SIGKILL) } }
        }
    }

    /// Waits for the child to end and reaps it; its exit code, or 128 + the signal that ended it.
    public func wait() -> Int32 {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
        locked { ended = true }
        return ChildProcess.wait(pid)
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    private static func sleep(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var left = timespec()
        while nanosleep(&request, &left) < 0 && errno == EINTR { request = left }
    }
}
