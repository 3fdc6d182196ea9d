// SSHDSpawn: long-running helper processes (sshd, ssh-agent) started with posix_spawn and reaped by pid.
// Foundation's Process on Linux waits for each child in a blocking wait4 on one monitor thread, so one child
// that never exits would stall every later Process.waitUntilExit in the test run.
import Foundation

public final class SpawnedProcess: @unchecked Sendable {
    public let pid: pid_t
    private var reaped = false

    /// Starts `path` with /dev/null for stdin and stderr, stdout to `output` (a file, truncated) or /dev/null, and
    /// no other descriptor of ours: a daemon (sshd, the tmux server) that inherited a pipe a test reads would keep
    /// that reader waiting for as long as it runs.
    public init(_ path: String, _ arguments: [String], environment: [String: String]? = nil,
                output: String? = nil) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        if output == nil {
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        Self.closeFrom3(&actions)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let env = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { env.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, path, &actions, nil, argv, env)
        guard status == 0 else { throw HarnessError("cannot start \(path): \(String(cString: strerror(status)))") }
        self.pid = pid
    }

    /// glibc's posix_spawn_file_actions_addclosefrom_np (2.34+), which Swift's Glibc module does not import:
    /// closes every descriptor from 3 up in the child, whatever other threads opened meanwhile.
    private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    /// Closes every descriptor from 3 up in the child (glibc before 2.34 has no way: nothing is closed there).
    private static func closeFrom3(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>) {
        _ = addCloseFrom?(actions, 3)
    }

    public var isRunning: Bool {
        guard !reaped else { return false }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid {
            reaped = true
            return false
        }
        return true
    }

    /// Runs a program and waits for it; stdout and stderr go to `output` (or /dev/null). For commands that leave
    /// a daemon behind (tmux new-session), which would hold a captured pipe open forever.
    @discardableResult
    public static func run(_ path: String, _ arguments: [String], output: String? = nil,
                           environment: [String: String]? = nil) throws -> Int32 {
        let process = try SpawnedProcess(path, arguments, environment: environment, output: output)
        return process.wait()
    }

    /// Waits for the process to end and returns its exit status (128 + the signal when a signal ended it).
    @discardableResult
    public func wait() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        reaped = true
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    /// SIGTERM, then wait for it to go.
    public func stop() {
        guard !reaped else { return }
        kill(pid, SIGTERM)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        reaped = true
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
