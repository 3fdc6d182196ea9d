// ForwardCommands: `sshelf forward list|add|edit|enable|disable|rm` — the stored rules (ForwardRunCommands runs
// them).
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfServices
import ShelfStore

enum ForwardCommands {
    /// --local, --remote, --dynamic: the rule's SPEC, as ssh's -L, -R and -D take it (ForwardSpec reads it, with its
    /// own words for what is wrong in it).
    struct SpecOptions: CommandOptions {
        let local = Option(
            "local", short: "L", .text("SPEC"), "forward a local port to host:hostport through the server (ssh -L)")
        let remote = Option(
            "remote", short: "R", .text("SPEC"),
            "forward a port on the server back to host:hostport here (ssh -R)")
        let dynamic = Option("dynamic", short: "D", .text("SPEC"), "a SOCKS proxy on a local port (ssh -D)")
    }

    static let publicBind = Flag(
        "allow-public-bind", "allow a bind address other than loopback (the port becomes reachable from the network)")
    static let sessions = Option(
        "sessions", .count(1...PortForwardRule.sessionLimit, examples: ["4"]),
        "spread the rule's connections over N SSH sessions (logins), 1-16, default 1; -L and -D only")

    struct AddOptions: CommandOptions {
        let spec = SpecOptions()
        let name = Option("name", .text("NAME"), "a label for the rule")
        let autostart = Flag("autostart", "start with 'sshelf forward up'")
        let disabled = Flag("disabled", "store the rule switched off")
        let sessions = ForwardCommands.sessions
        let allowPublicBind = ForwardCommands.publicBind
    }

    struct EditOptions: CommandOptions {
        let spec = SpecOptions()
        let name = Option("name", .text("NAME"), "a new label for the rule ('' for none)")
        let autostart = Flag("autostart", "start it with 'sshelf forward up'")
        let noAutostart = Flag("no-autostart", "do not start it with 'sshelf forward up'")
        let sessions = ForwardCommands.sessions
        let allowPublicBind = ForwardCommands.publicBind
    }
    static let ruleArguments = [
        ArgumentSpec(name: "RULE", help: "rule id prefix (from 'forward list') or rule name", variadic: true)
    ]

    static let commands: [CommandSpec] = [
        CommandSpec(
            path: ["forward", "list"], summary: "list forward rules (all, or one host's)",
            details: "Rules whose host was deleted (for example on another device) are kept and shown as orphaned.",
            arguments: [ArgumentSpec(name: "HOST", help: "only this host's rules", optional: true, completion: .host)],
            options: JSONOptions.self, run: list),
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
            options: AddOptions.self,
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
            options: EditOptions.self,
            examples: [
                "sshelf forward edit 3fa2 --local 15432:localhost:5432", "sshelf forward edit db --no-autostart",
            ],
            run: edit),
        CommandSpec(
            path: ["forward", "enable"], summary: "switch forward rules on",
            details: "'forward start HOST' runs a host's enabled rules; 'forward up' its enabled autostart rules.",
            arguments: ruleArguments, options: NoOptions.self, run: { try setEnabled(true, $0, $1) }),
        CommandSpec(
            path: ["forward", "disable"], summary: "switch forward rules off (kept, but not run)",
            arguments: ruleArguments, options: NoOptions.self, run: { try setEnabled(false, $0, $1) }),
        CommandSpec(
            path: ["forward", "rm"], summary: "remove forward rules",
            arguments: ruleArguments, run: remove),
    ]

    static func list(_ call: Call<JSONOptions>, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        let (rules, hosts) = try store.read { store -> ([PortForwardRule], [UUID: ShelfCore.Host]) in
            let hosts = Dictionary(try store.hosts().map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            if let name = call.argument(0) {
                return (try store.forwardRules(hostID: try Resolve.host(name, in: store).id), hosts)
            }
            return (try store.forwardRules(), hosts)
        }
        if call[\.json] {
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

    /// The --local/--remote/--dynamic SPECs given, with their kinds.
    static func givenSpecs<O>(_ call: Call<O>, _ group: KeyPath<O, SpecOptions>) -> [(ForwardKind, String)] {
        let kinds: [(ForwardKind, KeyPath<SpecOptions, Option<String>>)] = [
            (.local, \.local), (.remote, \.remote), (.dynamic, \.dynamic),
        ]
        return kinds.compactMap { kind, key in call[group.appending(path: key)].map { (kind, $0) } }
    }

    /// The one --local/--remote/--dynamic SPEC given.
    static func givenSpec<O>(_ call: Call<O>, _ group: KeyPath<O, SpecOptions>) throws -> ForwardSpec {
        let given = givenSpecs(call, group)
        guard given.count == 1, let (kind, text) = given.first else {
            throw ShelfError(
                .usage, "\(call.command.name): give exactly one of --local, --remote or --dynamic",
                hint: ArgumentParser.usageHint(call.command))
        }
        do { return try ForwardSpec.parse(text, kind: kind) } catch { throw ShelfError(.invalid, error.message) }
    }

    static func add(_ call: Call<AddOptions>, _ context: AppContext) throws -> Int32 {
        let spec = try givenSpec(call, \.spec)
        let sessions = call[\.sessions] ?? 1
        let (rule, hostName) = try context.store().write { store in
            let host = try Resolve.host(call.arguments[0], in: store)
            let rule = PortForwardRule(
                hostID: host.id, name: call[\.name] ?? "", kind: spec.kind,
                bindAddress: spec.bindAddress, bindPort: spec.bindPort, targetHost: spec.targetHost,
                targetPort: spec.targetPort, autostart: call[\.autostart],
                enabled: !call[\.disabled], sessions: sessions)
            try checkBindAddresses([rule], allowPublic: call[\.allowPublicBind])
            return (rule, try ForwardOperations.save(rule, in: store))
        }
        context.print("added forward \(Display.shortID(rule.id)) to \(Display.safe(hostName)): -\(spec.flag) \(spec)")
        try AutostartOffer.offer(rule, context)
        return 0
    }

    static func edit(_ call: Call<EditOptions>, _ context: AppContext) throws -> Int32 {
        if call[\.autostart] && call[\.noAutostart] {
            throw ShelfError(
                .usage, "forward edit: --autostart and --no-autostart exclude each other",
                hint: ArgumentParser.usageHint(call.command))
        }
        let spec = givenSpecs(call, \.spec).isEmpty ? nil : try givenSpec(call, \.spec)
        let (rule, hostName) = try context.store().write { store in
            var rule = try Resolve.forwardRule(call.arguments[0], in: store)
            if let spec {
                rule.kind = spec.kind
                rule.bindAddress = spec.bindAddress
                rule.bindPort = spec.bindPort
                rule.targetHost = spec.targetHost
                rule.targetPort = spec.targetPort
                try checkBindAddresses([rule], allowPublic: call[\.allowPublicBind])
            }
            if let name = call[\.name] { rule.name = name }
            if let sessions = call[\.sessions] { rule.sessions = sessions }
            if call[\.autostart] { rule.autostart = true }
            if call[\.noAutostart] { rule.autostart = false }
            rule.updatedAt = Date()
            return (rule, try ForwardOperations.save(rule, in: store))
        }
        context.print("updated forward \(describe(rule, hostName: hostName))")
        if call[\.autostart] { try AutostartOffer.offer(rule, context) }
        return 0
    }

    static func setEnabled(_ enabled: Bool, _ call: Call<NoOptions>, _ context: AppContext) throws -> Int32 {
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

    /// Listening on a non-loopback address exposes the port to the network: only with --allow-public-bind (the
    /// TUI asks instead). For -R the bind address is on the server, whose sshd decides (GatewayPorts).
    static func checkBindAddresses(_ rules: [PortForwardRule], allowPublic: Bool) throws {
        guard !allowPublic else { return }
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
