// SQLiteConnectionLock: one thread at a time inside a connection. sshelf opens its connections without SQLite's own
// mutex (SQLITE_OPEN_NOMUTEX), where two threads in one connection at once break its state — a TUI session's note
// read the store on the main thread while the connect's outcome was committed on another, and the store's WAL was
// left so that the next reader failed with "disk I/O error". Every call into a connection holds this lock, and a
// transaction holds it from BEGIN to COMMIT, so a second thread waits instead of running inside the first one's
// work. Recursive: a statement inside a transaction on the same thread goes on.
import Glibc

final class SQLiteConnectionLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func holding<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
