// SSHDSpawn: processes the tests start with posix_spawn and reap by pid — long-running helpers (sshd, ssh-agent,
// the tmux server's client), and sshelf commands that run in the background. Foundation's Process on Linux waits
// for each child in a blocking wait4 on one monitor thread, so one child that never exits would stall every later
// Process.waitUntilExit in the test run; and its pipes can miss their end-of-file, where a file cannot.
import Foundation

public final class SpawnedProcess: @unchecked Sendable {
    public let pid: pid_t
    private let exit: Exit

    /// The exit status, set by the reaper thread (which must not keep the process object alive).
    private final class Exit: @unchecked Sendable {
        let condition = NSCondition()
        var status: Int32?
    }

    /// Starts `path` with stdin on `input` (a file) or /dev/null, stdout to `output` (a file, truncated) or
    /// /dev/null, stderr to `errors` (a file), else to wherever stdout goes, and no other descriptor of ours: a
    /// daemon (sshd, the tmux server) that inherited a pipe a test reads would keep that reader waiting for as long
    /// as it runs.
    ///
    /// The program dies with the test process, however that ends (a crash, a kill, exit with the object still
    /// alive): it runs under `setpriv --pdeathsig KILL`, which sets PR_SET_PDEATHSIG before it execs the program
    /// (posix_spawn has no way to). Linux sends that signal when the *thread* that spawned the child ends, so the
    /// child is spawned by its own reaper thread, which lives exactly as long as the child does.
    public init(
        _ path: String, _ arguments: [String], environment: [String: String]? = nil,
        input: String? = nil, output: String? = nil, errors: String? = nil
    ) throws {
        // setpriv would report a missing program only on the child's stderr: say which package to install here.
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw HarnessError("cannot start \(path): no such program")
        }
        let launch = Launch(
            TestTool.setpriv.path, ["--pdeathsig", "KILL", path] + arguments,
            environment: environment ?? ProcessInfo.processInfo.environment)
        launch.addOpen(0, input ?? "/dev/null", O_RDONLY)
        let create = O_WRONLY | O_CREAT | O_TRUNC
        launch.addOpen(1, output ?? "/dev/null", create)
        if let errors { launch.addOpen(2, errors, create) } else { launch.addDup(1, to: 2) }
        launch.closeFrom3()
        // Reaped the moment it ends, as Foundation's Process does: a zombie still answers kill(pid, 0), so a
        // program waiting for it to go (`sshelf forward stop`) would wait in vain until a test polled.
        let exit = Exit()
        let reaper = Thread { [launch] in
            guard let pid = launch.spawn() else { return }
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
            let signal = raw & 0x7f
            exit.condition.lock()
            exit.status = signal == 0 ? (raw >> 8) & 0xff : 128 + signal
            exit.condition.broadcast()
            exit.condition.unlock()
        }
        reaper.name = "spawn-reap"
        reaper.start()
        self.exit = exit
        pid = try launch.waitForSpawn()
    }

    /// One posix_spawn call prepared on the test's thread and made on the reaper thread, which reports the pid
    /// (or the error) back.
    private final class Launch: @unchecked Sendable {
        let program: String
        let argv: [UnsafeMutablePointer<CChar>?]
        let env: [UnsafeMutablePointer<CChar>?]
        let actions = UnsafeMutablePointer<posix_spawn_file_actions_t>.allocate(capacity: 1)
        private let spawned = DispatchSemaphore(value: 0)
        private var result: (pid: pid_t, status: Int32) = (0, 0)

        init(_ program: String, _ arguments: [String], environment: [String: String]) {
            self.program = program
            argv = ([program] + arguments).map { strdup($0) } + [nil]
            env = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            posix_spawn_file_actions_init(actions)
        }

        deinit {
            posix_spawn_file_actions_destroy(actions)
            actions.deallocate()
            argv.forEach { free($0) }
            env.forEach { free($0) }
        }

        func addOpen(_ fd: Int32, _ path: String, _ flags: Int32) {
            posix_spawn_file_actions_addopen(actions, fd, path, flags, 0o600)
        }

        func addDup(_ fd: Int32, to target: Int32) { posix_spawn_file_actions_adddup2(actions, fd, target) }

        func closeFrom3() { SpawnedProcess.closeFrom3(actions) }

        /// Spawns (on the calling thread, the child's parent) and reports; nil when it failed.
        func spawn() -> pid_t? {
            var pid: pid_t = 0
            let status = posix_spawn(&pid, program, actions, nil, argv, env)
            result = (pid, status)
            spawned.signal()
            return status == 0 ? pid : nil
        }

        func waitForSpawn() throws -> pid_t {
            spawned.wait()
            guard result.status == 0 else {
                throw HarnessError("cannot start \(program): \(String(cString: strerror(result.status)))")
            }
            return result.pid
        }
    }

    /// glibc's posix_spawn_file_actions_addclosefrom_np (2.34+), which Swift's Glibc module does not import:
    /// closes every descriptor from 3 up in the child, whatever other threads opened meanwhile.
    private static let addCloseFrom:
        (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
            else { return nil }
            return unsafeBitCast(
                symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
        }()

    /// Closes every descriptor from 3 up in the child (glibc before 2.34 has no way: nothing is closed there).
    private static func closeFrom3(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>) {
        _ = addCloseFrom?(actions, 3)
    }

    /// The exit status (128 + the signal when a signal ended it), or nil while it runs.
    public var exitStatus: Int32? {
        exit.condition.lock()
        defer { exit.condition.unlock() }
        return exit.status
    }

    public var isRunning: Bool { exitStatus == nil }

    /// Waits for the process to end and returns its exit status.
    @discardableResult
    public func wait() -> Int32 {
        exit.condition.lock()
        defer { exit.condition.unlock() }
        while exit.status == nil { exit.condition.wait() }
        return exit.status ?? -1
    }

    /// Runs a program and waits for it; stdout and stderr go to `output` (or /dev/null). For commands that leave
    /// a daemon behind (tmux new-session), which would hold a captured pipe open forever.
    @discardableResult
    public static func run(
        _ path: String, _ arguments: [String], output: String? = nil,
        environment: [String: String]? = nil
    ) throws -> Int32 {
        try SpawnedProcess(path, arguments, environment: environment, output: output).wait()
    }

    /// SIGTERM, then wait for it to go.
    public func stop() {
        guard isRunning else { return }
        kill(pid, SIGTERM)
        wait()
    }

    deinit { stop() }
}

/// The processes under a process, read from /proc (for killing a server's sessions, finding a pane's child).
public enum ProcessTree {
    /// Direct children of `parent`.
    public static func children(of parent: pid_t) -> [pid_t] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { entry in
            guard let pid = pid_t(entry),
                let status = try? String(contentsOfFile: "/proc/\(entry)/status", encoding: .utf8),
                status.split(separator: "\n").contains("PPid:\t\(parent)")
            else { return nil }
            return pid
        }
    }

    /// The process's command name (/proc/PID/comm: the program's file name, at most 15 characters).
    public static func name(of pid: pid_t) -> String? {
        (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(in: .newlines)
    }

    /// What a process that should have ended is doing, for a failure message: each thread's name, state and
    /// kernel wait channel, then the same for every process below it (a child it waits for may be the one stuck).
    public static func describe(_ pid: pid_t) -> String {
        ([pid] + descendants(of: pid)).map(describeOne).joined(separator: "\n")
    }

    private static func describeOne(_ pid: pid_t) -> String {
        let tasks = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []).sorted()
        guard !tasks.isEmpty else { return "process \(pid) is gone" }
        var lines = ["process \(pid) (\(name(of: pid) ?? "?")), threads:"]
        for task in tasks {
            let base = "/proc/\(pid)/task/\(task)"
            let comm = (try? String(contentsOfFile: base + "/comm", encoding: .utf8))?.trimmingCharacters(in: .newlines)
            let stat = (try? String(contentsOfFile: base + "/stat", encoding: .utf8)) ?? ""
            // The state letter follows the parenthesised command name.
            let state = stat.split(separator: ")").last?.split(separator: " ").first.map(String.init) ?? "?"
            let wchan = (try? String(contentsOfFile: base + "/wchan", encoding: .utf8)) ?? "?"
            lines.append("  \(task) \(comm ?? "?") state \(state) waiting in \(wchan)")
        }
        return lines.joined(separator: "\n")
    }

    /// Every process below `root` (children, their children…), parents before children.
    public static func descendants(of root: pid_t) -> [pid_t] {
        var found: [pid_t] = []
        var frontier = [root]
        while let parent = frontier.popLast() {
            let children = children(of: parent)
            found += children
            frontier += children
        }
        return found
    }
}
