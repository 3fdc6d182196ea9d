// BackgroundThread: a named POSIX thread that runs a closure and ends, nobody waiting for it (Foundation's Thread
// is not in FoundationEssentials). JoinableThread is the one to use when something must wait for the end.
#if canImport(Glibc)
import Glibc
#endif

public enum BackgroundThread {
    private final class Body {
        let name: String
        let run: () -> Void
        init(_ name: String, _ run: @escaping () -> Void) { (self.name, self.run) = (name, run) }
    }

    /// Starts `body` on a new detached thread named `name` (cut to the 15 bytes Linux keeps); when no thread can
    /// be had, runs it here, as Foundation's Thread would have failed the program.
    public static func start(name: String, _ body: @escaping () -> Void) {
        let context = Unmanaged.passRetained(Body(name, body)).toOpaque()
        var thread = pthread_t()
        let started =
            pthread_create(
                &thread, nil,
                { context in
                    guard let context else { return nil }
                    let body = Unmanaged<Body>.fromOpaque(context).takeRetainedValue()
                    BackgroundThread.name(body.name)
                    body.run()
                    return nil
                }, context) == 0
        if started {
            pthread_detach(thread)
        } else {
            Unmanaged<Body>.fromOpaque(context).takeRetainedValue().run()
        }
    }

    /// Names the calling thread (what ps and gdb show) through /proc: Glibc's module map hides pthread_setname_np.
    private static func name(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = Array(name.utf8.prefix(15)).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }
}
