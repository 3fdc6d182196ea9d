// JoinableThread: a POSIX thread that can be joined. Foundation's Thread cannot be joined, and a semaphore
// signalled at the end of its closure lets the caller free libssh2 objects while the thread is still releasing
// its captures (which crashed at exit).
import Foundation

final class JoinableThread {
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    private var thread = pthread_t()
    private var started = false
    private var joined = false

    init(_ body: @escaping () -> Void) {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        started = pthread_create(&thread, nil, { context in
            guard let context else { return nil }
            Unmanaged<Body>.fromOpaque(context).takeRetainedValue().run()
            return nil
        }, context) == 0
        if !started {
            // No thread took the body: run it here so the caller's join contract still holds.
            Unmanaged<Body>.fromOpaque(context).takeRetainedValue().run()
        }
    }

    /// Waits until the thread has returned and released everything it held.
    func join() {
        guard started, !joined else { return }
        joined = true
        pthread_join(thread, nil)
    }
}
