// WarmCommands: `warm serve` (the keeper `exec --persist` starts in the background), `warm list` and `warm stop` — warm
// sessions that let a later `exec` skip the handshake and login, like OpenSSH's ControlPersist.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfOperations
import ShelfSSH
import ShelfServices

enum WarmCommands {
    static let defaultIdle = 600

    static let commands: [CommandSpec] = [
        CommandSpec(
            path: ["warm", "serve"], summary: "keep a logged-in session to a host for later exec calls",
            details: """
                Logs in without asking anything (vault, ssh-agent or key file only; an unknown host key is refused), \
                then serves `sshelf exec NAME` calls of your own user over a 0600 unix socket in the runtime \
                directory until it has been idle for --idle seconds or is stopped. Like ssh's ControlPersist \
                master it keeps watch with the host's ServerAliveInterval and ServerAliveCountMax: when that many \
                keepalives go unanswered it tells its waiting callers, removes its socket and exits, and the next \
                exec logs in anew. `sshelf exec NAME --persist` starts it in the background for you.
                """,
            arguments: [
                ArgumentSpec(
                    name: "NAME", help: "host name (NAME@ID when several hosts share it, or an id prefix)",
                    completion: .host)
            ],
            options: ServeOptions.self,
            examples: ["sshelf warm serve prod-db --idle 60"],
            run: serve),
        CommandSpec(
            path: ["warm", "list"], summary: "list the warm sessions running: host, keeper pid, since when",
            details: "Each keeper is asked over its socket (its pid comes from the connection, so a session listed is "
                + "one that answers); a socket nobody answers is removed.",
            options: JSONOptions.self,
            examples: ["sshelf warm list"],
            run: list),
        CommandSpec(
            path: ["warm", "stop"], summary: "end the warm session of a host (or all of them)",
            arguments: [
                ArgumentSpec(
                    name: "NAME", help: "host name (or id prefix); all hosts when left out",
                    optional: true, completion: .host)
            ],
            examples: ["sshelf warm stop prod-db", "sshelf warm stop"],
            run: stop),
    ]

    /// How long a warm session waits for a request before it ends: 1 second to a day.
    static let idle = ValueKind<Int>.seconds(1...86_400)

    struct ServeOptions: CommandOptions {
        let idle = Option("idle", WarmCommands.idle, "exit after this long without a request (default \(defaultIdle))")
        let readyFD = Option(
            "ready-fd", .descriptor, "write 'ready' (or the login error) to descriptor N, then close it")
        let timeout = SSHCommands.timeout
    }

    static func serve(_ call: Call<ServeOptions>, _ context: AppContext) throws -> Int32 {
        let (plan, store) = try SSHCommands.plan(for: call.arguments[0], context)
        let options = SSHCommands.connectOptions(timeout: call[\.timeout], context)
        let idle = call[\.idle] ?? defaultIdle
        let ready = call[\.readyFD]
        return try WarmKeeper.serve(plan, store: store, options: options, idle: idle, ready: ready, context: context)
    }

    static func list(_ call: Call<JSONOptions>, _ context: AppContext) throws -> Int32 {
        let found = WarmListing.entries(context.locations)
        let named = try context.store().read { store in try found.map { ($0, try store.host(id: $0.hostID)) } }
            .sorted { ($0.1?.name ?? "~", $0.0.hostID.uuidString) < ($1.1?.name ?? "~", $1.0.hostID.uuidString) }
        let entries = named.map(\.0), hosts = named.map(\.1)
        if call[\.json] {
            let objects = zip(entries, hosts).map { entry, host in
                WarmJSON(
                    host: host?.name, hostID: entry.hostID.uuidString.lowercased(), destination: host?.destination,
                    pid: entry.pid, startedAt: entry.started)
            }
            context.print(try JSONOutput.encode(objects))
            return 0
        }
        guard !entries.isEmpty else {
            context.errorOutput("no warm sessions; 'sshelf exec NAME --persist -- CMD' starts one\n")
            return 0
        }
        let rows = zip(entries, hosts).map { entry, host in
            [
                Display.safe(host?.name ?? "(removed host \(Display.shortID(entry.hostID)))"),
                Display.safe(host?.destination ?? ""), String(entry.pid),
                entry.started.map { Display.relative($0) } ?? "?",
            ]
        }
        context.output(Display.table(["HOST", "DESTINATION", "PID", "STARTED"], rows))
        return 0
    }

    private struct WarmJSON: Encodable {
        var host: String?
        var hostID: String
        var destination: String?
        var pid: Int32
        var startedAt: Date?
    }

    static func stop(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        var host: UUID? = nil
        if let name = call.arguments.first {
            host = try SSHCommands.plan(for: name, context).0.target.id
        }
        let count = WarmClient.stop(host: host, context: context)
        context.print("stopped \(count) warm session\(count == 1 ? "" : "s")")
        return 0
    }
}
