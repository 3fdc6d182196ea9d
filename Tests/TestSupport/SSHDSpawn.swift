// SSHDSpawn: long-running helper processes (sshd, ssh-agent) started with posix_spawn and reaped by pid.
// Foundation's Process on Linux waits for each child in a blocking wait4 on one monitor thread, so one child
// that never exits would stall every later Process.waitUntilExit in the test run.
import Foundation

public final class SpawnedProcess: @unchecked Sendable {
    public let pid: pid_t
    private var reaped = false

    public init(_ path: String, _ arguments: [String], environment: [String: String]? = nil) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd in Int32(0)...2 { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0) }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let env = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { env.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, path, &actions, nil, argv, env)
        guard status == 0 else { throw HarnessError("cannot start \(path): \(String(cString: strerror(status)))") }
        self.pid = pid
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

    /// Runs a program with /dev/null for stdin/stdout/stderr and waits for it; for commands that leave a daemon
    /// behind (tmux new-session), which would hold a captured pipe open forever.
    @discardableResult
    public static func run(_ path: String, _ arguments: [String]) throws -> Int32 {
        let process = try SpawnedProcess(path, arguments)
        var status: Int32 = 0
        while waitpid(process.pid, &status, 0) < 0 && errno == EINTR {}
        process.reaped = true
        return (status >> 8) & 0xff
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
