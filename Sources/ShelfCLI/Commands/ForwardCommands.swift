// ForwardCommands: `sshelf forward list|add|edit|enable|disable|rm` — the stored rules (ForwardRunCommands runs
// them).
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfServices
import ShelfStore

enum ForwardCommands {
    static let specOptions: [OptionSpec] = [
        .value("local", "SPEC", short: "L", "forward a local port to host:hostport through the server (ssh -L)"),
        .value("remote", "SPEC", short: "R", "forward a port on the server back to host:hostport here (ssh -R)"),
        .value("dynamic", "SPEC", short: "D", "a SOCKS proxy on a local port (ssh -D)"),
    ]
    static let publicBind = OptionSpec.flag(
        "allow-public-bind", "allow a bind address other than loopback (the port becomes reachable from the network)")
    static let sessionsOption = OptionSpec.value(
        "sessions", "N", "spread the rule's connections over N SSH sessions (logins), 1-16, default 1; -L and -D only")
    static let ruleArguments = [
        ArgumentSpec(name: "RULE", help: "rule id prefix (from 'forward list') or rule name", variadic: true)
    ]

    static let commands: [CommandSpec] = [
        CommandSpec(
            path: ["forward", "list"], summary: "list forward rules (all, or one host's)",
            details: "Rules whose host was deleted (for example on another device) are kept and shown as orphaned.",
            arguments: [ArgumentSpec(name: "HOST", help: "only this host's rules", optional: true, completion: .host)],
            options: [.flag("json", "print JSON for scripts")], run: list),
        CommandSpec(
            path: ["forward", "add"], summary: "add a forward rule to a host",
            details: "SPEC uses OpenSSH's syntax: [bind:]port:host:hostport for --local/--remote, [bind:]port for "
                + "--dynamic. The bind address defaults to 127.0.0.1. A field with a / is a unix socket's path: "
                + "--local 5555:/var/run/docker.sock, --remote /run/a.sock:/run/b.sock (run by 'forward start "
                + "--openssh'; see docs/FORWARDS.md).",
            arguments: [
                ArgumentSpec(
                    name: "HOST", help: "host name (NAME@ID when several hosts share it, or an id prefix)",
                    completion: .host)
            ],
            options: specOptions + [
                .value("name", "NAME", "a label for the rule"),
                .flag("autostart", "start with 'sshelf forward up'"),
                .flag("disabled", "store the rule switched off"),
                sessionsOption,
                publicBind,
            ],
            examples: [
                "sshelf forward add prod-db --local 5432:localhost:5432",
                "sshelf forward add bastion --dynamic 1080 --autostart",
                "sshelf forward add storage --local 9000:localhost:9000 --sessions 4",
            ],
            run: add),
        CommandSpec(
            path: ["forward", "edit"], summary: "change a forward rule",
            details:
                "Only the options given change. A new --local, --remote or --dynamic SPEC replaces the rule's kind "
                + "and spec. A running 'forward up' or 'forward start' picks the change up when it next starts.",
            arguments: [ArgumentSpec(name: "RULE", help: "rule id prefix (from 'forward list') or rule name")],
            options: specOptions + [
                .value("name", "NAME", "a new label for the rule ('' for none)"),
                .flag("autostart", "start it with 'sshelf forward up'"),
                .flag("no-autostart", "do not start it with 'sshelf forward up'"),
                sessionsOption,
                publicBind,
            ],
            examples: [
                "sshelf forward edit 3fa2 --local 15432:localhost:5432", "sshelf forward edit db --no-autostart",
            ],
            run: edit),
        CommandSpec(
            path: ["forward", "enable"], summary: "switch forward rules on",
            details: "'forward start HOST' runs a host's enabled rules; 'forward up' its enabled autostart rules.",
            arguments: ruleArguments, run: { try setEnabled(true, $0, $1) }),
        CommandSpec(
            path: ["forward", "disable"], summary: "switch forward rules off (kept, but not run)",
            arguments: ruleArguments, run: { try setEnabled(false, $0, $1) }),
        CommandSpec(
            path: ["forward", "rm"], summary: "remove forward rules",
            arguments: ruleArguments, run: remove),
    ]

    static func list(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        let (rules, hosts) = try store.read { store -> ([PortForwardRule], [UUID: ShelfCore.Host]) in
            let hosts = Dictionary(try store.hosts().map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            if let name = call.argument(0) {
                return (try store.forwardRules(hostID: try Resolve.host(name, in: store).id), hosts)
            }
            return (try store.forwardRules(), hosts)
        }
        if call.flag("json") {
            context.print(try JSONOutput.encode(rules))
            return 0
        }
        if rules.isEmpty {
            context.errorOutput("no forward rules; 'sshelf forward add HOST --local SPEC' adds one\n")
            return 0
        }
        let rows = rules.map { rule -> [String] in
            let host = rule.hostID.flatMap { hosts[$0] }?.name ?? "(orphaned: host deleted)"
            var state = rule.enabled ? "enabled" : "disabled"
            if rule.autostart { state += ",autostart" }
            return [
                Display.shortID(rule.id), host, "-\(rule.spec.flag)", rule.spec.description, state, "\(rule.sessions)",
                rule.name,
            ]
        }
        context.output(Display.table(["ID", "HOST", "KIND", "SPEC", "STATE", "SESSIONS", "NAME"], rows))
        return 0
    }

    static let specKinds: [(ForwardKind, String)] = [(.local, "local"), (.remote, "remote"), (.dynamic, "dynamic")]

    /// The one --local/--remote/--dynamic SPEC given.
    static func givenSpec(_ call: Invocation) throws -> ForwardSpec {
        let given = specKinds.compactMap { kind, name in call.value(name).map { (kind, $0) } }
        guard given.count == 1, let (kind, text) = given.first else {
            throw ShelfError(
                .usage, "\(call.command.name): give exactly one of --local, --remote or --dynamic",
                hint: ArgumentParser.usageHint(call.command))
        }
        do { return try ForwardSpec.parse(text, kind: kind) } catch { throw ShelfError(.invalid, error.message) }
    }

    static func add(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let spec = try givenSpec(call)
        let sessions = try sessionsValue(call) ?? 1
        let (rule, hostName) = try context.store().write { store in
            let host = try Resolve.host(call.arguments[0], in: store)
            let rule = PortForwardRule(
                hostID: host.id, name: call.value("name") ?? "", kind: spec.kind,
                bindAddress: spec.bindAddress, bindPort: spec.bindPort, targetHost: spec.targetHost,
                targetPort: spec.targetPort, autostart: call.flag("autostart"),
                enabled: !call.flag("disabled"), sessions: sessions)
            try checkBindAddresses([rule], call)
            return (rule, try ForwardOperations.save(rule, in: store))
        }
        context.print("added forward \(Display.shortID(rule.id)) to \(Display.safe(hostName)): -\(spec.flag) \(spec)")
        try AutostartOffer.offer(rule, context)
        return 0
    }

    static func edit(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        if call.flag("autostart") && call.flag("no-autostart") {
            throw ShelfError(
                .usage, "forward edit: --autostart and --no-autostart exclude each other",
                hint: ArgumentParser.usageHint(call.command))
        }
        let spec = specKinds.contains { call.value($0.1) != nil } ? try givenSpec(call) : nil
        let (rule, hostName) = try context.store().write { store in
            var rule = try Resolve.forwardRule(call.arguments[0], in: store)
            if let spec {
                rule.kind = spec.kind
                rule.bindAddress = spec.bindAddress
                rule.bindPort = spec.bindPort
                rule.targetHost = spec.targetHost
                rule.targetPort = spec.targetPort
                try checkBindAddresses([rule], call)
            }
            if let name = call.value("name") { rule.name = name }
            if let sessions = try sessionsValue(call) { rule.sessions = sessions }
            if call.flag("autostart") { rule.autostart = true }
            if call.flag("no-autostart") { rule.autostart = false }
            rule.updatedAt = Date()
            return (rule, try ForwardOperations.save(rule, in: store))
        }
        context.print("updated forward \(describe(rule, hostName: hostName))")
        if call.flag("autostart") { try AutostartOffer.offer(rule, context) }
        return 0
    }

    static func setEnabled(_ enabled: Bool, _ call: Invocation, _ context: AppContext) throws -> Int32 {
        let changed = try context.store().write { store in
            try call.arguments.map { text -> String in
                var rule = try Resolve.forwardRule(text, in: store)
                rule.enabled = enabled
                rule.updatedAt = Date()
                return describe(rule, hostName: try ForwardOperations.save(rule, in: store))
            }
        }
        context.print(changed.map { "\(enabled ? "enabled" : "disabled") forward \($0)" }.joined(separator: "\n"))
        return 0
    }

    /// "3fa2c1d0 of db: -L 127.0.0.1:5432:localhost:5432 (disabled, autostart) 'pg'".
    static func describe(_ rule: PortForwardRule, hostName: String) -> String {
        var states: [String] = []
        if !rule.enabled { states.append("disabled") }
        if rule.autostart { states.append("autostart") }
        var text = "\(Display.shortID(rule.id)) of \(Display.safe(hostName)): -\(rule.spec.flag) \(rule.spec)"
        if !states.isEmpty { text += " (\(states.joined(separator: ", ")))" }
        if !rule.name.isEmpty { text += " '\(Display.safe(rule.name))'" }
        return text
    }

    /// `--sessions N` as a number (its range is the rule's validation); nil when not given.
    static func sessionsValue(_ call: Invocation) throws -> Int? {
        guard let text = call.value("sessions") else { return nil }
        guard let sessions = Int(text) else {
            throw ShelfError(
                .invalid, "--sessions takes a number of SSH sessions, not '\(Display.safe(text))'",
                hint: "for example --sessions 4 (1 to \(PortForwardRule.sessionLimit))")
        }
        return sessions
    }

    /// Listening on a non-loopback address exposes the port to the network: only with --allow-public-bind (the
    /// TUI asks instead). For -R the bind address is on the server, whose sshd decides (GatewayPorts).
    static func checkBindAddresses(_ rules: [PortForwardRule], _ call: Invocation) throws {
        guard !call.flag("allow-public-bind") else { return }
        for rule in rules where rule.listensOnNetwork {
            throw ShelfError(
                .usage,
                "rule -\(rule.spec.flag) \(rule.spec) listens on \(Display.safe(rule.bindAddress)), which is not "
                    + "loopback: port \(rule.bindPort) would be reachable from the network",
                hint: "pass --allow-public-bind if that is what you want")
        }
    }

    static func remove(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        let removed = try store.write { store in
            try call.arguments.map { text -> String in
                let rule = try Resolve.forwardRule(text, in: store)
                try ForwardOperations.delete(rule.id, in: store)
                return "removed forward \(Display.shortID(rule.id)) (-\(rule.spec.flag) \(rule.spec))"
            }
        }
        context.print(removed.joined(separator: "\n"))
        return 0
    }
}
