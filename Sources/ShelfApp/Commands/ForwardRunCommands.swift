// ForwardRunCommands: `sshelf forward start` — runs a host's forward rules in the foreground until Ctrl-C or
// SIGTERM, over one connection made exactly as `connect` makes it (plan, host-key trust, vault credentials).
import Foundation
import ShelfCore
import ShelfSSH
import ShelfStore

enum ForwardRunCommands {
    static let publicBindOption = OptionSpec.flag(
        "allow-public-bind", "allow rules that listen on a non-loopback address (the port becomes reachable from the network)")

    static let commands: [CommandSpec] = [
        CommandSpec(
            path: ["forward", "start"], summary: "run a host's forward rules in the foreground",
            details: """
                Connects to the host (as 'connect' does: jump chain, host-key check before any credential) and \
                runs its enabled forward rules, or only the RULEs named, until Ctrl-C or SIGTERM. A port that is \
                already in use is an error naming it. Rules that listen on a non-loopback address need \
                --allow-public-bind. Exit status 0 after Ctrl-C, 255 when the connection failed or was lost.
                """,
            arguments: [
                ArgumentSpec(name: "HOST", help: "host name (or id prefix)", completion: .host),
                ArgumentSpec(name: "RULE", help: "only these rules (id prefix or name); default: every enabled rule",
                             optional: true, variadic: true),
            ],
            options: SSHCommands.connectOptions + [publicBindOption],
            examples: ["sshelf forward start prod-db", "sshelf forward start bastion socks"],
            run: start),
    ]

    static func start(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let (plan, store) = try SSHCommands.plan(for: call.arguments[0], context)
        let rules = try selectRules(call, hostID: plan.target.id, hostName: plan.target.name, store: store)
        try checkBindAddresses(rules, allowPublic: call.flag("allow-public-bind"))
        let options = try SSHCommands.connectOptions(call, context)
        return try SSHCommands.withConnection(plan, store: store, call: call, options: options, context: context) { connection in
            let engine = try ForwardEngine(connection: connection, rules: rules, hostName: plan.target.name)
            for status in engine.status() {
                context.errorOutput("sshelf: forwarding \(status.spec) (port \(status.boundPort))\n")
            }
            context.errorOutput("sshelf: press Ctrl-C to stop\n")
            let signals = StopSignals { engine.stop() }
            defer { signals.cancel() }
            try engine.run()
            for status in engine.status() {
                context.errorOutput("sshelf: stopped \(status.spec): \(status.totalConnections) connections, \(status.bytesOut) bytes out, \(status.bytesIn) bytes in\n")
            }
            return 0
        }
    }

    /// The named rules of this host, or all its enabled ones.
    static func selectRules(_ call: Invocation, hostID: UUID, hostName: String, store: Store) throws -> [PortForwardRule] {
        let names = Array(call.arguments.dropFirst())
        let rules = try store.read { store -> [PortForwardRule] in
            if names.isEmpty { return try store.forwardRules(hostID: hostID).filter(\.enabled) }
            return try names.map { name in
                let rule = try Resolve.forwardRule(name, in: store)
                guard rule.hostID == hostID else {
                    throw ShelfError(.usage, "forward rule '\(Display.safe(name))' belongs to another host",
                                     hint: "sshelf forward list \(Display.safe(hostName))")
                }
                return rule
            }
        }
        guard !rules.isEmpty else {
            throw ShelfError(.notFound, "\(Display.safe(hostName)) has no enabled forward rules",
                             hint: "sshelf forward add \(Display.safe(hostName)) --local 8080:localhost:80")
        }
        return rules
    }

    /// Listening on a non-loopback address exposes the port to the network: only with explicit consent.
    static func checkBindAddresses(_ rules: [PortForwardRule], allowPublic: Bool) throws {
        guard !allowPublic else { return }
        for rule in rules where rule.kind != .remote && !ForwardCommands.isLoopback(rule.bindAddress) {
            throw ShelfError(.usage, "rule -\(rule.spec.flag) \(rule.spec) listens on \(Display.safe(rule.bindAddress)): port \(rule.bindPort) would be reachable from the network",
                             hint: "pass --allow-public-bind if that is what you want")
        }
    }
}

/// Turns SIGINT and SIGTERM into a call (on a dispatch queue, not in a signal handler), and back on cancel.
final class StopSignals {
    private let sources: [DispatchSourceSignal]

    init(_ action: @escaping @Sendable () -> Void) {
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler(handler: action)
            source.resume()
            return source
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
