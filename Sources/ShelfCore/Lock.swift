// Lock: a mutual-exclusion lock over a POSIX mutex, in place of Foundation's NSLock (not in FoundationEssentials).
#if canImport(Glibc)
import Glibc
#endif

public final class Lock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    public init() { pthread_mutex_init(mutex, nil) }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }

    public func unlock() { pthread_mutex_unlock(mutex) }

    /// Takes the lock if it is free within `timeout`; false when it was not (NSLock's `lock(before:)`).
    public func lock(within timeout: Duration) -> Bool {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)  // pthread_mutex_timedlock's clock
        let (seconds, attoseconds) = timeout.components
        var deadline = Lock.realtime(
            Double(now.tv_sec) + Double(now.tv_nsec) / 1e9 + Double(seconds)
                + Double(attoseconds) / 1e18)
        return pthread_mutex_timedlock(mutex, &deadline) == 0
    }

    /// Seconds since 1970 as the timespec POSIX waits take.
    static func realtime(_ seconds: Double) -> timespec {
        let whole = seconds.rounded(.down)
        return timespec(tv_sec: Int(whole), tv_nsec: min(999_999_999, Int((seconds - whole) * 1e9)))
    }

    public func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
