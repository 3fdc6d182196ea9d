// JoinableThread: a POSIX thread that can be joined. Foundation's Thread cannot be joined, and a semaphore
// signalled at the end of its closure lets the caller free libssh2 objects while the thread is still releasing
// its captures (which crashed at exit).
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

public final class JoinableThread {
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    private var thread = pthread_t()
    private var started = false
    private var joined = false

    /// Starts `body` on a new thread. When no thread can be had, `runInline` decides: run it here (callers that
    /// must see it finished), or not at all (a relay that would block its caller).
    public init(runInlineIfNoThread runInline: Bool = true, _ body: @escaping () -> Void) {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        started =
            pthread_create(
                &thread, nil,
                { context in
                    guard let context else { return nil }
                    Unmanaged<Body>.fromOpaque(context).takeRetainedValue().run()
                    return nil
                }, context) == 0
        if !started {
            let body = Unmanaged<Body>.fromOpaque(context).takeRetainedValue()
            if runInline { body.run() }
        }
    }

    /// False when no thread could be had (the body then ran inline, or not at all).
    public var isStarted: Bool { started }

    /// Waits until the thread has returned and released everything it held.
    public func join() {
        guard started, !joined else { return }
        joined = true
        pthread_join(thread, nil)
    }
}
