// TestOwnerWatch: under the test harness only, this sshelf process — a detached agent, warm keeper or forward
// supervisor included — ends when the test process that started it ends, however that ended (a SIGKILL runs none of
// the test's own clean-up). TestSupport names the test process in SSHELF_TEST_OWNER_PID for every sshelf it runs; a
// user's sshelf never has the variable, and its daemons detach for real.
import CDescriptorShims
import Glibc

public enum TestOwnerWatch {
    public static let variable = "SSHELF_TEST_OWNER_PID"
    /// How long the process has to end on SIGTERM (its own clean-up: sockets removed, sessions closed) before it is
    /// ended outright.
    static let grace: UInt32 = 10

    /// Watches the owner named in `environment`, if any, on a thread of its own (a pidfd polled until the owner
    /// ends: no polling by time). An owner already gone ends this process at once.
    public static func start(environment: [String: String]) {
        guard let text = environment[variable], let owner = pid_t(text), owner > 1 else { return }
        let fd = cshims_pidfd_open(owner)
        if fd < 0 {
            // ESRCH: the owner ended before we looked. Any other error (a kernel before 5.3): nothing to watch with.
            if errno == ESRCH { end() }
            return
        }
        BackgroundThread.start(name: "test-owner") {
            var watched = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            while poll(&watched, 1, -1) < 0 && errno == EINTR {}
            end()
        }
    }

    /// SIGTERM to ourselves (a daemon's stop path runs), then, if that did not end us, the end.
    private static func end() {
        kill(getpid(), SIGTERM)
        sleep(grace)
        _exit(143)
    }
}
