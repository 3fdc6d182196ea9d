// TmuxCommands: `sshelf tmux open|window|broadcast` — sessions in tmux windows when sshelf runs inside tmux
// (docs/SESSIONS.md): hosts opened in a new window (several: one tiled window, a pane each), the setting that makes
// `connect` do so, and broadcast (typing into every pane at once) only after a typed confirmation naming the number
// of hosts, written to the release log when it goes on and off.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfOperations
import ShelfServices
import ShelfStore
import ShelfSystem

enum TmuxCommands {
    static let commands: [CommandSpec] = [
        CommandSpec(
            path: ["tmux", "open"], summary: "open hosts in a new tmux window (several: tiled, a pane each)",
            details: """
                Inside tmux only. One host opens in a new window named after it; several (names, @group, tag:NAME, \
                a search) open in one window, tiled, a pane each, its host named in the pane's border. Each pane runs \
                `sshelf connect` (sshelf's own client, its escapes ~. ~s ~?). At most \(TmuxWindows.maxPanes) \
                hosts. Broadcast to the panes: `sshelf tmux broadcast on` (see there).
                """,
            arguments: [
                ArgumentSpec(
                    name: "TARGETS", help: "hosts, @group, tag:NAME or a quoted search", variadic: true,
                    completion: .host)
            ],
            examples: ["sshelf tmux open web1", "sshelf tmux open @prod/web"], run: open),
        CommandSpec(
            path: ["tmux", "window"], summary: "show or set whether connect opens a new tmux window inside tmux",
            details: """
                With `on`, `sshelf connect HOST` and the TUI's Enter open the session in a new tmux window (when run \
                inside tmux) instead of in this terminal; `connect --no-window` still connects here. This device's \
                setting (not synced).
                """,
            arguments: [ArgumentSpec(name: "on|off", help: "the new setting (none: show it)", optional: true)],
            run: window),
        CommandSpec(
            path: ["tmux", "broadcast"], summary: "type into every pane of an sshelf tmux window at once, or stop",
            details: """
                In a window `sshelf tmux open` made for several hosts (this one, or --window ID): `on` asks you to \
                type the number of hosts first, then turns on tmux's synchronize-panes — every key goes to every \
                host — and every pane's border says BROADCAST; `off` ends it. Both are written to the release log \
                (sshelf log: the hosts, when on, when off) before tmux is told. From a tmux key: bind-key B \
                display-popup -E "sshelf tmux broadcast on --window '#{window_id}'".
                """,
            arguments: [ArgumentSpec(name: "on|off", help: "turn broadcast on or off")],
            options: BroadcastOptions.self,
            examples: ["sshelf tmux broadcast on", "sshelf tmux broadcast off --window @3"], run: broadcast),
    ]

    static func tmux(_ context: AppContext) throws -> TmuxWindows {
        guard let tmux = TmuxWindows(environment: context.environment) else { throw TmuxWindows.notInside }
        return tmux
    }

    static func open(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let tmux = try tmux(context)
        let store = try context.store()
        let hosts = try store.read { store in FleetTargets.hosts(try FleetTargets.resolve(call.arguments, in: store)) }
        guard !hosts.isEmpty else {
            throw ShelfError(.notFound, "no hosts match \(call.arguments.map(ShellWord.quote).joined(separator: " "))")
        }
        let window = try tmux.open(hosts.map { ($0.name, $0.id) }, sshelf: SelfProcess.path)
        context.print(
            hosts.count == 1
                ? "opened \(Display.safe(hosts[0].name)) in tmux window \(window)"
                : "opened \(hosts.count) hosts in tmux window \(window), tiled; to type into all of them: "
                    + "sshelf tmux broadcast on --window \(window)")
        return 0
    }

    static func window(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        guard let word = call.arguments.first else {
            let on = try store.setting(TmuxWindows.windowSetting) == "on"
            context.print("tmux window: \(on ? "on" : "off")")
            return 0
        }
        guard word == "on" || word == "off" else {
            throw ShelfError(.usage, "tmux window: '\(Display.safe(word))' is neither on nor off")
        }
        try store.write { store in try store.setSetting(TmuxWindows.windowSetting, word == "on" ? "on" : nil) }
        context.print(
            word == "on"
                ? "tmux window: on — inside tmux, connect opens a new window (connect --no-window connects here)"
                : "tmux window: off")
        return 0
    }

    struct BroadcastOptions: CommandOptions {
        let window = Option("window", .text("ID"), "the tmux window (@N, as #{window_id}; default: this terminal's)")
        let passphraseFD = LoginPassphraseOption.passphraseFD
    }

    static func broadcast(_ call: Call<BroadcastOptions>, _ context: AppContext) throws -> Int32 {
        let word = call.arguments[0]
        guard word == "on" || word == "off" else {
            throw ShelfError(.usage, "tmux broadcast: '\(Display.safe(word))' is neither on nor off")
        }
        let tmux = try tmux(context)
        let window = try tmux.window(call[\.window])
        guard let hosts = try tmux.hosts(window: window) else {
            throw ShelfError(
                .usage, "tmux window \(Display.safe(window)) is not one sshelf opened for several hosts",
                hint: "open one: sshelf tmux open HOST HOST… (or @group), then broadcast there")
        }
        let on = word == "on"
        if try tmux.isBroadcasting(window: window) == on {
            context.print("broadcast is already \(word) in tmux window \(window)")
            return 0
        }
        if on {
            let answer = String(hosts.count)
            guard let tty = TTY.open() else {
                throw ShelfError(
                    .usage, "broadcast needs a typed confirmation, and there is no terminal to ask on",
                    hint: "run it on a terminal (a tmux key: display-popup -E \"sshelf tmux broadcast on\")")
            }
            defer { tty.close() }
            let names = HostRanges.fold(hosts.map { Display.safe($0) }, within: 240)
            tty.write("Broadcast sends every key you type to \(hosts.count) hosts at once: \(names)\n")
            tty.write("Type \(answer) (the number of hosts) to turn it on: ")
            guard tty.readLine(echo: true).trimmingSpaces() == answer else {
                throw ShelfError(
                    .usage, "not confirmed; broadcast stays off", hint: "type the number of hosts at the question")
            }
        }
        let input = SecretInput(call, \.passphraseFD)
        let vault = try FleetLog.prepare(context.workspace, what: "broadcast") {
            guard input.fd != nil || isatty(0) == 1 else { return nil }
            return try? input.read(prompt: "Vault passphrase: ")
        }
        try tmux.setBroadcast(on, window: window, hosts: hosts) { entry in
            try FleetLog.record(entry, what: "broadcast", vault: vault, workspace: context.workspace)
        }
        context.print(
            on
                ? "broadcast on: every key goes to \(hosts.count) hosts in tmux window \(window); end it with "
                    + "sshelf tmux broadcast off --window \(window)"
                : "broadcast off in tmux window \(window)")
        return 0
    }
}
