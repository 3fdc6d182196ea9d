// ServiceCommands: `sshelf service run|install|uninstall|status|stop` — the one user service that hosts the agent,
// the autostart forwards and background sync (docs/SERVICE.md), its systemd user unit, and what it says it is doing.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfServices
import ShelfSync
import ShelfSystem

#if canImport(Glibc)
import Glibc
#endif

enum ServiceCommands {
    /// The log is started afresh (the old one kept as service.log.1) when it has grown past this at start.
    static let logLimit = 1 << 20

    static let commands: [CommandSpec] = [
        CommandSpec(
            path: ["service", "run"],
            summary: "run the user service: the agent, autostart forwards and background sync (foreground)",
            details: """
                One process per user (a second one says which pid runs). It serves the sshelf agent at its usual \
                socket, runs every enabled autostart forward rule (as 'forward up'), and syncs: about 2 s after a \
                local change, at once when a folder remote changes, on a timer for a git remote, with backoff after \
                a failure; a device waiting to be enrolled is enrolled on its next run. Its log is service.log in \
                the state folder; SIGTERM stops it. 'sshelf service install' runs it under systemd --user.
                """,
            examples: ["sshelf service run &", "sshelf service install"],
            run: run),
        CommandSpec(
            path: ["service", "install"],
            summary: "write the systemd user unit and start it (or say how to start the service)",
            details: """
                Writes ~/.config/systemd/user/sshelf.service (ExecStart: this binary; no secret in it) and, where \
                systemd --user runs, enables and starts it. Elsewhere it prints the line that starts the service \
                from ~/.profile.
                """,
            run: install),
        CommandSpec(
            path: ["service", "uninstall"], summary: "stop the user service and remove its systemd unit",
            run: uninstall),
        CommandSpec(
            path: ["service", "status"],
            summary: "show the service's parts: agent, forwards, sync (last run, next attempt and why)",
            options: JSONOptions.self, run: status),
        CommandSpec(path: ["service", "stop"], summary: "stop the running user service", run: stop),
    ]

    // MARK: run

    static func run(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let locations = context.locations
        guard let lockFD = try ServiceFiles.lock(locations) else {
            let pid = ServiceFiles.read(locations)?.pid
            throw ShelfError(
                .failure, "the sshelf service is already running\(pid.map { " (pid \($0))" } ?? "")",
                hint: "sshelf service status")
        }
        defer { close(lockFD) }
        let logPath = ServiceFiles.logPath(locations)
        let log = try openLog(logPath)
        context.errorOutput("sshelf service running (pid \(getpid())); its log is \(logPath)\n")
        // Everything the parts report (the agent's lines, the forwards', sync's) goes to the log from here on.
        CloseOnExec.replaceStandardError(with: log)
        close(log)
        return ServiceHost(context: context).run()
    }

    /// The log, appended to (0600 whatever the umask); one grown past the limit is moved to service.log.1 first.
    static func openLog(_ path: String) throws -> Int32 {
        var info = stat()
        if lstat(path, &info) == 0, info.st_size > logLimit { rename(path, path + ".1") }
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, PrivateFiles.fileMode)
        guard fd >= 0 else {
            throw ShelfError(.storage, "cannot open the service log \(path): \(String(cString: strerror(errno)))")
        }
        fchmod(fd, PrivateFiles.fileMode)
        return fd
    }

    // MARK: install

    static func install(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let environment = context.environment
        let path = ServiceUnit.path(environment: environment, home: context.homeDirectory)
        let binary = SelfProcess.path
        let folder = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
        do {
            try PrivateFiles.ensureDirectory(folder)
            try PrivateFiles.atomicWrite(
                Data(ServiceUnit.text(binary: binary, environment: environment).utf8), to: path)
        } catch {
            throw ShelfError(.storage, "cannot write the unit \(path): \(error)")
        }
        context.print("wrote \(path)")
        guard ServiceUnit.userManagerRuns(environment: environment) else {
            context.print(
                "systemd --user does not run here: start the service yourself, e.g. from ~/.profile:\n"
                    + "  \(ShellWord.quote(binary)) service status >/dev/null 2>&1 || "
                    + "(\(ShellWord.quote(binary)) service run >/dev/null 2>&1 &)")
            return 0
        }
        for step in [["daemon-reload"], ["enable", "--now", ServiceUnit.name]] {
            if let failure = ServiceUnit.systemctl(step, environment: environment) {
                throw ShelfError(
                    .failure, "systemctl --user \(step.joined(separator: " ")) failed: \(Display.safe(failure))",
                    hint: "the unit is written; 'systemctl --user enable --now \(ServiceUnit.name)' starts it")
            }
        }
        context.print("enabled and started \(ServiceUnit.name) (systemctl --user status \(ServiceUnit.name))")
        return 0
    }

    static func uninstall(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let environment = context.environment
        let path = ServiceUnit.path(environment: environment, home: context.homeDirectory)
        let installed = FileManager.default.fileExists(atPath: path)
        if installed, ServiceUnit.userManagerRuns(environment: environment),
            let failure = ServiceUnit.systemctl(["disable", "--now", ServiceUnit.name], environment: environment)
        {
            context.warn("systemctl --user disable --now \(ServiceUnit.name): \(Display.safe(failure))")
        }
        if let running = ServiceFiles.running(context.locations) { try stopService(Int32(running.pid), context) }
        if installed {
            do { try FileManager.default.removeItem(atPath: path) } catch {
                throw ShelfError(.storage, "cannot remove \(path): \(error)")
            }
            if ServiceUnit.userManagerRuns(environment: environment) {
                _ = ServiceUnit.systemctl(["daemon-reload"], environment: environment)
            }
            context.print("removed \(path)")
        } else {
            context.print("no unit was installed at \(path)")
        }
        return 0
    }

    // MARK: status and stop

    static func stop(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        guard let running = ServiceFiles.running(context.locations) else {
            context.errorOutput("the sshelf service is not running; nothing to stop\n")
            return 0
        }
        try stopService(running.pid, context)
        return 0
    }

    static func stopService(_ pid: Int32, _ context: AppContext) throws {
        guard kill(pid, SIGTERM) == 0 else {
            throw ShelfError(.failure, "cannot signal the service (pid \(pid)): \(String(cString: strerror(errno)))")
        }
        guard ChildProcess.waitForExit(pid, deadline: Date().addingTimeInterval(20)) != nil else {
            throw ShelfError(.failure, "the service (pid \(pid)) did not stop within 20 s")
        }
        context.print("stopped the sshelf service (pid \(pid))")
    }

    static func status(_ call: Call<JSONOptions>, _ context: AppContext) throws -> Int32 {
        let locations = context.locations
        let unit = ServiceUnit.path(environment: context.environment, home: context.homeDirectory)
        let installed = FileManager.default.fileExists(atPath: unit)
        guard let state = ServiceFiles.running(locations) else {
            if call[\.json] {
                context.print(
                    encode(
                        .object([
                            "running": .bool(false), "unit": installed ? .string(unit) : .null,
                            "log": .string(ServiceFiles.logPath(locations)),
                        ])))
                return 3
            }
            throw ShelfError(
                .notFound, "the sshelf service is not running" + (installed ? " (its unit is installed: \(unit))" : ""),
                hint: installed ? "systemctl --user start \(ServiceUnit.name)" : "sshelf service install")
        }
        // The agent's lock state is asked of the agent itself: the vault session can change without the service
        // noticing (a `vault lock` in another terminal, the idle timeout).
        let agent = state.agent.running ? AgentClient.status(locations) : nil
        if call[\.json] {
            var object: [String: JSONValue] = [:]
            if let data = try? ShelfJSON.encoder().encode(state),
                case .object(let fields)? = try? ShelfJSON.decoder().decode(JSONValue.self, from: data)
            {
                object = fields
            }
            object["running"] = .bool(true)
            object["log"] = .string(ServiceFiles.logPath(locations))
            object["unit"] = installed ? .string(unit) : .null
            if case .object(var fields)? = object["agent"] {
                fields["locked"] = agent.map { .bool($0.locked || !$0.lockedKeys.isEmpty) } ?? .null
                fields["keys"] = agent.map { .number(Double($0.keys.count)) } ?? .null
                object["agent"] = .object(fields)
            }
            context.print(encode(.object(object)))
            return 0
        }
        let sync = state.sync
        var syncLine = sync.lastResult.map { "\($0) (\(Display.relative(sync.lastRun)))" } ?? "not run yet"
        if sync.state == "off" { syncLine = "off ('sshelf sync enable' turns it on)" }
        if sync.state == "syncing" { syncLine = "syncing now; last: " + syncLine }
        var next = ""
        if let at = sync.nextAttempt {
            let seconds = max(0, Int(at.timeIntervalSinceNow.rounded(.up)))
            next = "in \(seconds) s: \(sync.nextReason ?? "due")"
        }
        let forwards = state.forwards
        let agentLine: String
        if !state.agent.running {
            agentLine = "not running: \(state.agent.vault)"
        } else if let agent {
            let locked = agent.locked || !agent.lockedKeys.isEmpty
            agentLine =
                "\(state.agent.socket) — \(locked ? "locked" : "unlocked"), \(agent.keys.count) key(s) served"
        } else {
            agentLine = "\(state.agent.socket) — not answering"
        }
        let rows: [(String, String)] = [
            ("service", "running, pid \(state.pid), since \(Display.relative(state.started))"),
            ("agent", agentLine),
            (
                "forwards",
                forwards.rules.isEmpty
                    ? Display.safe(forwards.note ?? "none")
                    : "\(forwards.up.count) of \(forwards.rules.count) up"
                        + (forwards.up.isEmpty ? "" : ": " + forwards.up.map(Display.safe).joined(separator: ", "))
            ),
            ("sync", Display.safe(syncLine)),
            ("next sync", next.isEmpty ? "when something changes" : Display.safe(next)),
            ("log", ServiceFiles.logPath(locations)),
            ("unit", installed ? unit : "not installed ('sshelf service install')"),
        ]
        context.output(rows.map { "\($0.0.padded(to: 11))\($0.1)\n" }.joined())
        return 0
    }

    private static func encode(_ value: JSONValue) -> String {
        (try? ShelfJSON.encoder(pretty: true).encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }
}
