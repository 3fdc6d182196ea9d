// ForwardCommands: `sshelf forward list|add|rm` — the stored rules (ForwardRunCommands runs them).
import Foundation
import ShelfCore
import ShelfOperations
import ShelfStore

enum ForwardCommands {
    static let commands: [CommandSpec] = [
        CommandSpec(path: ["forward", "list"], summary: "list forward rules (all, or one host's)",
                    details: "Rules whose host was deleted (for example on another device) are kept and shown as orphaned.",
                    arguments: [ArgumentSpec(name: "HOST", help: "only this host's rules", optional: true, completion: .host)],
                    options: [.flag("json", "print JSON for scripts")], run: list),
        CommandSpec(path: ["forward", "add"], summary: "add a forward rule to a host",
                    details: "SPEC uses OpenSSH's syntax: [bind:]port:host:hostport for --local/--remote, [bind:]port for --dynamic. The bind address defaults to 127.0.0.1.",
                    arguments: [ArgumentSpec(name: "HOST", help: "host name (or id prefix)", completion: .host)],
                    options: [
                        .value("local", "SPEC", short: "L", "forward a local port to host:hostport through the server (ssh -L)"),
                        .value("remote", "SPEC", short: "R", "forward a port on the server back to host:hostport here (ssh -R)"),
                        .value("dynamic", "SPEC", short: "D", "a SOCKS proxy on a local port (ssh -D)"),
                        .value("name", "NAME", "a label for the rule"),
                        .flag("autostart", "start with 'sshelf forward up'"),
                        .flag("disabled", "store the rule switched off"),
                        .flag("allow-public-bind", "allow a bind address other than loopback (the port becomes reachable from the network)"),
                    ],
                    examples: ["sshelf forward add prod-db --local 5432:localhost:5432",
                               "sshelf forward add bastion --dynamic 1080 --autostart"],
                    run: add),
        CommandSpec(path: ["forward", "rm"], summary: "remove forward rules",
                    arguments: [ArgumentSpec(name: "RULE", help: "rule id prefix (from 'forward list') or rule name", variadic: true)],
                    run: remove),
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
            return [Display.shortID(rule.id), host, "-\(rule.spec.flag)", rule.spec.description, state, rule.name]
        }
        context.output(Display.table(["ID", "HOST", "KIND", "SPEC", "STATE", "NAME"], rows))
        return 0
    }

    static func add(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let given: [(ForwardKind, String)] = [(.local, "local"), (.remote, "remote"), (.dynamic, "dynamic")]
            .compactMap { kind, name in call.value(name).map { (kind, $0) } }
        guard given.count == 1, let (kind, text) = given.first else {
            throw ShelfError(.usage, "forward add: give exactly one of --local, --remote or --dynamic",
                             hint: ArgumentParser.usageHint(call.command))
        }
        let spec: ForwardSpec
        do { spec = try ForwardSpec.parse(text, kind: kind) } catch { throw ShelfError(.usage, error.message) }
        let (rule, hostName) = try context.store().write { store in
            let host = try Resolve.host(call.arguments[0], in: store)
            let rule = PortForwardRule(hostID: host.id, name: call.value("name") ?? "", kind: kind,
                                       bindAddress: spec.bindAddress, bindPort: spec.bindPort, targetHost: spec.targetHost,
                                       targetPort: spec.targetPort, autostart: call.flag("autostart"),
                                       enabled: !call.flag("disabled"))
            try ForwardOperations.checkBindAddresses([rule], allowPublic: call.flag("allow-public-bind"))
            return (rule, try ForwardOperations.save(rule, in: store))
        }
        context.print("added forward \(Display.shortID(rule.id)) to \(Display.safe(hostName)): -\(spec.flag) \(spec)")
        return 0
    }

    static func remove(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        let removed = try store.write { store in
            try call.arguments.map { text -> String in
                let rule = try Resolve.forwardRule(text, in: store)
                try store.deleteForwardRule(rule.id)
                return "removed forward \(Display.shortID(rule.id)) (-\(rule.spec.flag) \(rule.spec))"
            }
        }
        context.print(removed.joined(separator: "\n"))
        return 0
    }
}
