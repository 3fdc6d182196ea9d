// ServiceForwards: `forward up`'s work inside the user service — every enabled autostart rule, one HostRunner per
// host (reconnecting with backoff), started again when the rules or their hosts change in the store. It holds the
// supervisor's lock and writes the supervisor's state file, so `forward status` and the TUI read the service's
// rules as they read `forward up`'s, and a `forward up` started beside it is refused.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfOperations
import ShelfSSH
import ShelfStore
import ShelfSystem
import ShelfVault

final class ServiceForwards: @unchecked Sendable {
    private let context: AppContext
    private let log: @Sendable (String) -> Void
    /// A runner's state changed: the service republishes.
    private let changed: @Sendable () -> Void
    private let lock = Lock()
    private var runners: [HostRunner] = []
    private var signature: [String]?
    private var note: String?
    private var lockFD: Int32 = -1
    private let started = Date()

    init(
        context: AppContext, log: @escaping @Sendable (String) -> Void, changed: @escaping @Sendable () -> Void
    ) {
        self.context = context
        self.log = log
        self.changed = changed
    }

    /// Reads the autostart rules and (re)starts the runners when they or their hosts changed since the last look.
    func reload(_ store: Store) {
        let found: (rules: [(ShelfCore.Host, [PortForwardRule])], signature: [String], skipped: [String])
        do { found = try store.read { try Self.autostart($0) } } catch {
            log("forwards: cannot read the rules: \(error)")
            return
        }
        lock.lock()
        let same = found.signature == signature
        lock.unlock()
        guard !same else { return }
        stopRunners()
        for line in found.skipped { log("forwards: \(line)") }
        guard !found.rules.isEmpty else {
            setNote(
                found.skipped.isEmpty ? "no enabled autostart forward rules" : found.skipped.joined(separator: "; "))
            lock.lock()
            signature = found.signature
            lock.unlock()
            changed()
            return
        }
        if lockFD < 0 {
            do { lockFD = try SupervisorFiles.lock(context.locations) ?? -1 } catch { lockFD = -1 }
            if lockFD < 0 {
                let pid = (try? SupervisorFiles.read(context.locations))??.pid
                setNote(
                    "a 'sshelf forward up'\(pid.map { " (pid \($0))" } ?? "") runs them; "
                        + "stop it and restart the service")
                changed()
                return
            }
        }
        let options = ConnectOptions.standard(context.workspace)
        // Whether `vault unlock` reaches the service here: the hints of its log say what works.
        let keyring = (try? VaultAccess.open(context.workspace, create: false).session().shared) == true
        var made: [HostRunner] = []
        do {
            made = try store.read { store in
                try found.rules.map { host, rules in
                    HostRunner(
                        plan: try ConnectPlan.make(for: host, in: store), rules: rules, options: options, vault: nil,
                        context: context, who: "the sshelf service",
                        report: { [log, changed] line in
                            log("forwards: " + line.worded { ServiceHintWords.words($0, keyring: keyring) }); changed()
                        })
                }
            }
        } catch {
            setNote("cannot plan the forwards: \(error)")
            changed()
            return
        }
        lock.lock()
        runners = made
        signature = found.signature
        note = nil
        lock.unlock()
        log("forwards: running \(made.count) host(s) of autostart rules")
        for runner in made { runner.start() }
        changed()
    }

    /// The enabled autostart rules by host, a signature that changes when a rule or one of its hosts does, and the
    /// rules left out with why.
    static func autostart(_ store: Store) throws -> (
        rules: [(ShelfCore.Host, [PortForwardRule])], signature: [String], skipped: [String]
    ) {
        let wanted = try store.forwardRules().filter { $0.enabled && $0.autostart }
        var byHost: [UUID: [PortForwardRule]] = [:]
        var skipped: [String] = []
        for rule in wanted {
            if rule.listensOnNetwork {
                skipped.append(
                    "-\(rule.spec.flag) \(rule.spec) listens on \(rule.bindAddress), not loopback: "
                        + "the service does not run it ('sshelf forward up --allow-public-bind' does)")
                continue
            }
            guard let hostID = rule.hostID else { continue }
            byHost[hostID, default: []].append(rule)
        }
        let encoder = ShelfJSON.encoder()
        var result: [(ShelfCore.Host, [PortForwardRule])] = []
        var signature: [String] = []
        for (hostID, rules) in byHost {
            guard let host = try store.host(id: hostID) else {
                skipped.append("\(rules.count) rule(s) belong to a deleted host; skipped")
                continue
            }
            result.append((host, rules))
            let parts = [try encoder.encode(host)] + (try rules.map { try encoder.encode($0) })
            signature.append(parts.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n"))
        }
        result.sort { $0.0.name < $1.0.name }
        return (result, signature.sorted(), skipped)
    }

    private func setNote(_ text: String?) {
        lock.lock()
        note = text
        lock.unlock()
    }

    func snapshot() -> ServiceState.Forwards {
        lock.lock()
        let (running, note) = (runners, self.note)
        lock.unlock()
        let states = running.flatMap { $0.snapshot() }
        return ServiceState.Forwards(
            rules: states.map { "\($0.host) \($0.spec)" },
            up: states.filter { $0.state == .active }.map { "\($0.host) \($0.spec)" }, note: note)
    }

    /// The supervisor's state file, for `forward status` and the TUI (only while the service holds its lock).
    func publish() {
        lock.lock()
        let (running, held) = (runners, lockFD >= 0)
        lock.unlock()
        guard held else { return }
        let state = SupervisorState(
            pid: getpid(), startedAt: started, updatedAt: Date(), rules: running.flatMap { $0.snapshot() })
        do { try SupervisorFiles.write(state, context.locations) } catch {
            log("forwards: could not write the forward state file: \(error)")
        }
    }

    private func stopRunners() {
        lock.lock()
        let running = runners
        runners = []
        lock.unlock()
        for runner in running { runner.stop() }
    }

    func stop() {
        stopRunners()
        if lockFD >= 0 {
            try? FileManager.default.removeItem(atPath: SupervisorFiles.statePath(context.locations))
            close(lockFD)
            lockFD = -1
        }
    }
}
