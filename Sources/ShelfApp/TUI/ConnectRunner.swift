// ConnectRunner: runs the interactive session for a host as a child process on the real terminal (curses
// left beforehand) and describes how it ended in one line.
//
// With the SSH engine merged, `sshelf connect <id>` is the child. Until then (no `connect` command in the
// table) the INTERIM is OpenSSH's `ssh` with the host's address, port, user and jump chain.
import Foundation
import ShelfCore
import ShelfUI

enum ConnectRunner {
    struct Plan: Equatable {
        var executable: String
        var arguments: [String]
        var interim: Bool
    }

    static func plan(for host: ShelfCore.Host, catalog: Catalog, hasConnectCommand: Bool, selfPath: String) -> Plan {
        if hasConnectCommand {
            return Plan(executable: selfPath, arguments: ["connect", host.id.uuidString.lowercased()], interim: false)
        }
        var args: [String] = []
        if host.port != ShelfCore.Host.defaultPort { args += ["-p", String(host.port)] }
        if !host.user.isEmpty { args += ["-l", host.user] }
        let jumps = host.jumpHostIDs.compactMap { catalog.host($0)?.destination }
        if !jumps.isEmpty { args += ["-J", jumps.joined(separator: ",")] }
        args += ["--", host.hostname]
        return Plan(executable: "/usr/bin/env", arguments: ["ssh"] + args, interim: true)
    }

    /// Runs the plan with the terminal as its stdin/stdout/stderr and waits; sshelf ignores Ctrl-C meanwhile
    /// (the child gets it) so the TUI survives the session.
    static func run(_ plan: Plan, hostName: String) -> Notice {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: plan.executable)
        process.arguments = plan.arguments
        let previousInt = signal(SIGINT, SIG_IGN)
        let previousQuit = signal(SIGQUIT, SIG_IGN)
        defer {
            signal(SIGINT, previousInt)
            signal(SIGQUIT, previousQuit)
        }
        do {
            try process.run()
        } catch {
            return Notice("could not start \(plan.arguments.first ?? plan.executable): \(error)", isError: true)
        }
        process.waitUntilExit()
        let status = process.terminationStatus
        if process.terminationReason == .uncaughtSignal {
            return Notice("session to \(hostName) ended by signal \(status)", isError: true)
        }
        return status == 0 ? Notice("session to \(hostName) ended (exit 0)")
            : Notice("session to \(hostName) ended with exit \(status)", isError: true)
    }

    static var selfPath: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}
