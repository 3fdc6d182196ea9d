// ConnectRunner: runs the interactive session for a host (`sshelf connect <id>`) as a child process on the real
// terminal (curses left beforehand) and describes how it ended in one line.
import Foundation
import ShelfCore
import ShelfUI

enum ConnectRunner {
    struct Plan: Equatable {
        var executable: String
        var arguments: [String]
    }

    /// The child is this same binary's `connect` command, by host id (names are not unique).
    static func plan(for host: ShelfCore.Host, selfPath: String) -> Plan {
        Plan(executable: selfPath, arguments: ["connect", host.id.uuidString.lowercased()])
    }

    /// Runs the plan with the terminal as its stdin/stdout/stderr and waits; sshelf ignores Ctrl-C and Ctrl-\\
    /// meanwhile (the child gets them, with default handlers) so the TUI survives the session. posix_spawn and
    /// waitpid rather than Foundation's Process, whose monitoring thread is more than a terminal hand-off needs.
    static func run(_ plan: Plan, hostName: String) -> Notice {
        let previousInt = signal(SIGINT, SIG_IGN)
        let previousQuit = signal(SIGQUIT, SIG_IGN)
        defer {
            signal(SIGINT, previousInt)
            signal(SIGQUIT, previousQuit)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGINT)
        sigaddset(&defaults, SIGQUIT)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF))
        let argv = [plan.executable] + plan.arguments
        var cArgv = argv.map { strdup($0) } + [nil]
        defer { for pointer in cArgv { free(pointer) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, plan.executable, nil, &attributes, &cArgv, environ)
        guard rc == 0 else {
            return Notice("could not start \(plan.arguments.first ?? plan.executable): \(String(cString: strerror(rc)))",
                          isError: true)
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return Notice("lost track of the session to \(hostName)", isError: true) }
        }
        let signalled = status & 0x7f
        if signalled != 0 { return Notice("session to \(hostName) ended by signal \(signalled)", isError: true) }
        let code = (status >> 8) & 0xff
        return code == 0 ? Notice("session to \(hostName) ended (exit 0)")
            : Notice("session to \(hostName) ended with exit \(code)", isError: true)
    }

    static var selfPath: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}
