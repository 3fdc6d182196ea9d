// Condition: a condition variable with its lock, over POSIX, in place of Foundation's NSCondition (not in
// FoundationEssentials). Deadlines are wall-clock Dates, as NSCondition's were.
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

public final class Condition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)  // CLOCK_REALTIME, the clock a Date is on
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }

    public func unlock() { pthread_mutex_unlock(mutex) }

    public func signal() { pthread_cond_signal(condition) }

    /// Wakes every waiter (each checks its own condition again).
    public func broadcast() { pthread_cond_broadcast(condition) }

    /// Waits (the lock held) until signalled; may wake early, as any condition variable.
    public func wait() { pthread_cond_wait(condition, mutex) }

    /// Waits (the lock held) until signalled or `deadline`; false when the deadline passed.
    @discardableResult
    public func wait(until deadline: Date) -> Bool {
        var time = Lock.realtime(deadline.timeIntervalSince1970)
        return pthread_cond_timedwait(condition, mutex, &time) == 0
    }
}
