// OpenSSHFleet: a host of a fleet command (`run`, the TUI's run pane) that sshelf's own client cannot log in with the
// libssh2 it loaded (OpenSSHHandover.loginNeeds: an RSA key on 1.10, a FIDO security key, a certificate on 1.10) runs
// its command through OpenSSH's ssh instead, with the sshelf agent and sshelf's pins — as `connect` hands such a host
// over. Nothing is asked mid-run, as in the rest of the run: ssh runs with BatchMode, and every hop must be pinned in
// sshelf (a hop without a pin is refused before ssh starts), so the bridge gives each hop UserKnownHostsFile = the
// pins, GlobalKnownHostsFile /dev/null and StrictHostKeyChecking yes: ssh accepts that key and no other.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfOperations
import ShelfSSH
import ShelfStore
import ShelfSystem

public final class OpenSSHFleet: @unchecked Sendable {
    private let context: AppContext
    private let store: Store
    private let warn: (String) -> Void
    private let lock = Lock()
    /// The bridge written and the names it gives hosts: once per run, by the first host that needs them.
    private var prepared: Result<Prepared, ShelfError>?
    /// The run's vault passphrase, handed to the agent when a host's vault key is locked for it (OpenSSHAgentUnlock):
    /// ssh runs in batch mode, so the bridge's guard asks nobody.
    private let agentPassphrase: AgentPassphrase?

    struct Prepared {
        var config: [String]
        var names: [UUID: String]
        var agentEnvironment: [String: String]?
    }

    init(store: Store, context: AppContext, warn: @escaping (String) -> Void, agentPassphrase: AgentPassphrase?) {
        self.agentPassphrase = agentPassphrase
        self.store = store
        self.context = context
        self.warn = warn
    }

    /// Why `plan` goes through OpenSSH (nil: sshelf's own client logs it in).
    public static func reason(_ plan: ConnectPlan) -> String? { OpenSSHHandover.loginNeeds(plan) }

    /// What a dry run says of a host handed over: through OpenSSH, why, and which hop must be pinned first.
    public static func dryRunNote(_ plan: ConnectPlan) -> String? {
        guard let why = reason(plan) else { return nil }
        var note = "goes through OpenSSH's ssh with the sshelf agent and sshelf's pins: \(why)"
        if let hop = plan.hosts.first(where: { $0.pinnedHostKey == nil }) {
            note +=
                "; skipped unless \(Display.safe(hop.name))'s host key is pinned first "
                + "(sshelf trust \(ShellWord.quote(Display.safe(hop.name))))"
        }
        return note
    }

    /// Runs `command` on `plan`'s host through OpenSSH's ssh, for a fleet run: stdin /dev/null, output kept as a
    /// login's is, stopped by `abort` (the command timeout counts from when ssh starts) — with `run`'s options carried
    /// as sshelf's own client carries them: the user the plan logs in as (`-l`), a terminal (`-t`: ssh -tt, TERM the
    /// type asked for), `sudo` (on a terminal; the password typed into ssh's input only when sudo printed the run's
    /// marker — after ssh verified the host's key against the pin and logged in — and Ctrl-C at a second prompt), and
    /// each chunk of output to `observe` as it arrives (`--stream`).
    public func run(
        _ command: String, plan: ConnectPlan, why: String, connectTimeout: Double, abort: FleetAbort,
        terminal: String? = nil, sudo: FleetSudo? = nil,
        observe: ((UnsafeRawBufferPointer, _ toStderr: Bool) -> Void)? = nil, connected: () -> Void
    ) -> FleetHostResult {
        let terminal = sudo == nil ? terminal : terminal ?? "xterm"
        var input = OpenSSHInput(sudo: sudo)
        let user = plan.endpoints.last.flatMap { $0.user.isEmpty ? nil : ["-l", $0.user] } ?? []
        // A post-quantum hand-over records its session as the host's last, with the key exchange ssh's log names.
        let log = OpenSSHSessionLog.wanted(plan, why: why) ? try? OpenSSHSessionLog(context.locations) : nil
        defer { log?.remove() }
        return handOver(
            plan, why: why, abort: abort, connected: connected, terminal: terminal, input: &input, observe: observe,
            log: log
        ) { name in
            // -tt: a terminal though ssh's own input is not one; LogLevel ERROR: no "Connection to … closed." after
            // a terminal session (ssh's errors, which the report reads, are kept).
            let tty = terminal == nil ? ["-T"] : ["-tt", "-o", "LogLevel=ERROR"]
            // A certificate renewed for the target's tied identity (CertificateRenewal) beside the agent's key.
            let certificate = CertificateRenewal.sshOptions(plan, locations: context.workspace.locations)
            return [OpenSSHHandover.sshPath] + (log?.arguments ?? []) + Self.batch(connectTimeout) + tty + user
                + certificate + ["--", name, sudo?.command(command) ?? command]
        }
    }

    /// Copies through OpenSSH's scp (its SFTP mode, OpenSSH 9.0 and later): `sources` to `path` on the host
    /// (`upload`), or the host's `sources` to the local `destination`.
    public func copy(
        _ sources: [String], to destination: String, upload: Bool, recursive: Bool, preserve: Bool,
        plan: ConnectPlan, why: String, connectTimeout: Double, abort: FleetAbort, connected: () -> Void
    ) -> FleetHostResult {
        var input = OpenSSHInput(sudo: nil)
        // scp has no -E: a post-quantum hand-over's ssh logs on scp's standard error, which is read and not shown.
        let logged = OpenSSHSessionLog.wanted(plan, why: why)
        var result = handOver(
            plan, why: why, abort: abort, connected: connected, terminal: nil, input: &input, observe: nil,
            stderrLog: logged
        ) { name in
            // -q would make ssh quiet whatever LogLevel says; scp shows no progress meter off a terminal anyway.
            let flags =
                (recursive ? ["-r"] : []) + (preserve ? ["-p"] : []) + (logged ? ["-o", "LogLevel=DEBUG1"] : ["-q"])
            let remote = { (path: String) in "\(name):\(path)" }
            let words = upload ? sources + [remote(destination)] : sources.map(remote) + [destination]
            // The renewed certificate, as for run: the bridge's IdentitiesOnly would hide the one the agent lists.
            let certificate = CertificateRenewal.sshOptions(plan, locations: context.workspace.locations)
            return [Self.scpPath] + Self.batch(connectTimeout) + flags + certificate + ["--"] + words
        }
        if result.outcome == .succeeded { result.note = "copied through OpenSSH's scp" }
        // scp's own refusals (a file that is not regular, permission denied) are on its stderr: the host's line says
        // the last of them; a command's output is not kept for a copy.
        if result.outcome == .failed, result.error == nil, let line = OpenSSHFailure.lastLine(result.stderr) {
            result.error = "OpenSSH's scp: " + line
        }
        result.stdout = []
        result.stderr = []
        result.exitStatus = nil
        return result
    }

    static let scpPath = "/usr/bin/scp"

    /// Nothing asked, and only the pinned key accepted (the bridge names the pins for each pinned hop).
    private static func batch(_ connectTimeout: Double) -> [String] {
        [
            "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes", "-o", "UpdateHostKeys=no",
            "-o", "ConnectTimeout=\(max(1, Int(connectTimeout.rounded(.up))))",
        ]
    }

    /// The hand-over both share: every hop pinned (else refused before anything starts), the bridge and agent
    /// ready, then the program `argv` makes for the host's bridge name, run to its end.
    private func handOver(
        _ plan: ConnectPlan, why: String, abort: FleetAbort, connected: () -> Void, terminal: String?,
        input: inout OpenSSHInput, observe: ((UnsafeRawBufferPointer, _ toStderr: Bool) -> Void)?,
        log: OpenSSHSessionLog? = nil, stderrLog: Bool = false, argv: (String) -> [String]
    ) -> FleetHostResult {
        var result = FleetHostResult(name: plan.target.name, hostID: plan.target.id, outcome: .failed)
        result.started = Date()
        result.openSSH = why
        defer { result.finished = Date() }
        if let hop = plan.hosts.first(where: { $0.pinnedHostKey == nil }) {
            let name = Display.safe(hop.name)
            result.outcome = .hostKeyRefused
            result.error =
                "\(name)'s host key is not pinned in sshelf, and OpenSSH (which "
                + "\(Display.safe(plan.target.name)) goes through: \(why)) is given only pinned keys; nothing was sent"
            result.fix = "sshelf trust \(ShellWord.quote(name))"
            return result
        }
        result.fingerprint = plan.target.pinnedHostKey.flatMap(FleetSession.fingerprint)
        let setup: Prepared
        do {
            setup = try prepare(plan)
        } catch {
            result.error = error.message
            result.fix = error.hint
            return result
        }
        guard let name = setup.names[plan.target.id], name == plan.target.name else {
            result.error =
                "'\(Display.safe(plan.target.name))' cannot be written to the ssh_config bridge (a name ssh reads as "
                + "a pattern, or shared with another host), so OpenSSH cannot reach it"
            result.fix = "sshelf edit \(ShellWord.quote(Display.safe(plan.target.name))) --rename NEWNAME"
            return result
        }
        var words = argv(name)
        do {
            words.insert(contentsOf: setup.config + (try OpenSSHHandover.kexArguments(plan)), at: 1)
        } catch {
            let failure = ShelfError(from: error)
            result.error = failure.message
            result.fix = failure.hint
            return result
        }
        var environment = setup.agentEnvironment ?? context.environment
        if let terminal { environment["TERM"] = terminal }
        let exit = spawn(
            words, environment: environment, abort: abort, connected: connected, input: &input, observe: observe,
            into: &result)
        if input.refused {
            // sudo asked twice: ssh was stopped here, and its exit on that signal is not the command's.
            result.exitStatus = nil
            result.outcome = .failed
            result.error = FleetConnect.sudoRefused
            return result
        }
        if log != nil || stderrLog {
            // ssh's own words went to its log: back after the command's, where ssh would have written them. A log on
            // standard error (scp's ssh) is read from there, and only ssh's words stay.
            let read = log?.read() ?? OpenSSHSessionLog.read(String(decoding: result.stderr, as: UTF8.self))
            if log == nil { result.stderr = [] }
            read.said.withUnsafeBytes { bytes in
                if log != nil { observe?(bytes, true) }
                result.append(bytes, toStderr: true)
            }
            if read.loggedIn {
                var outcome = ConnectOutcome()
                outcome.keyExchanges = read.keyExchange.map { [$0] } ?? []
                result.connectOutcome = outcome
            }
        }
        finish(&result, exit: exit, abort: abort, program: "OpenSSH's " + (words[0].split(separator: "/").last ?? ""))
        return result
    }

    /// The bridge brought up to date (its hosts, its pins) and the sshelf agent started when a hop's key is in the
    /// vault: once per run.
    private func prepare(_ plan: ConnectPlan) throws(ShelfError) -> Prepared {
        lock.lock()
        defer { lock.unlock() }
        var setup: Prepared
        switch prepared {
        case .success(let done): setup = done
        case .failure(let error): throw error
        case nil:
            do {
                let bridge = SSHConfigBridge(workspace: context.workspace)
                try bridge.write(from: store)
                setup = Prepared(
                    config: OpenSSHHandover.configArguments(context, bridge: bridge.path),
                    names: SSHConfigEmitter.writtenNames(try store.hosts()), agentEnvironment: nil)
                prepared = .success(setup)
            } catch {
                let failure = ShelfError(from: error)
                prepared = .failure(failure)
                throw failure
            }
        }
        // Under the lock, so the first host that needs the agent starts it and the others find it running.
        do {
            setup.agentEnvironment = try OpenSSHHandover.agentEnvironment(
                plan, store: store, dryRun: false, context: context, said: warn, passphrase: agentPassphrase,
                interactive: false)
        } catch {
            throw ShelfError(from: error)
        }
        return setup
    }

    /// Starts ssh with `input`'s read end (or /dev/null) as its stdin and its output read into `result` (and
    /// `observe`) until both streams end; its exit status.
    private func spawn(
        _ argv: [String], environment: [String: String], abort: FleetAbort, connected: () -> Void,
        input: inout OpenSSHInput, observe: ((UnsafeRawBufferPointer, _ toStderr: Bool) -> Void)?,
        into result: inout FleetHostResult
    ) -> Int32? {
        var out: [Int32] = [-1, -1], err: [Int32] = [-1, -1]
        guard CloseOnExec.pipe(&out) == 0, CloseOnExec.pipe(&err) == 0, input.open() else {
            for fd in out + err where fd >= 0 { close(fd) }
            result.error = "could not start \(argv[0]): \(String(cString: strerror(errno)))"
            return nil
        }
        defer { input.close() }
        let stdin = input.readEnd ?? open("/dev/null", O_RDONLY | O_CLOEXEC)
        let started = ChildProcess.spawn(
            argv, stdin: stdin, stdout: out[1], stderr: err[1], environment: environment)
        if input.readEnd == nil { close(stdin) }
        input.closeReadEnd()
        close(out[1])
        close(err[1])
        defer {
            close(out[0])
            close(err[0])
        }
        guard case .success(let pid) = started else {
            result.error = "could not start \(argv[0])"
            return nil
        }
        let child = StoppableChild(pid: pid)
        defer { abort.detachChild() }
        if abort.attach(child: child) { connected() }
        var fds = [
            pollfd(fd: out[0], events: Int16(POLLIN), revents: 0),
            pollfd(fd: err[0], events: Int16(POLLIN), revents: 0),
        ]
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let deliver = { (bytes: UnsafeRawBufferPointer, toStderr: Bool, result: inout FleetHostResult) in
            observe?(bytes, toStderr)
            result.append(bytes, toStderr: toStderr)
        }
        while fds.contains(where: { $0.fd >= 0 }) {
            let ready = Glibc.poll(&fds, nfds_t(fds.count), -1)
            guard ready >= 0 || errno == EINTR else { break }
            for index in fds.indices where fds[index].fd >= 0 && fds[index].revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(fds[index].fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    buffer.withUnsafeBytes {
                        let chunk = UnsafeRawBufferPointer(rebasing: $0.prefix(count))
                        if index == 0, input.watches {
                            // sudo's prompt: answered (or refused) here, its marker taken out of what is kept.
                            let kept = input.read(chunk, stop: child)
                            kept.withUnsafeBytes { deliver($0, false, &result) }
                        } else {
                            deliver(chunk, index == 1, &result)
                        }
                    }
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    fds[index].fd = -1
                }
            }
        }
        input.finish().withUnsafeBytes { deliver($0, false, &result) }
        return child.wait()
    }

    /// How the host ended, from ssh's exit status and its own last line: 255 with an ssh error is the connection's
    /// failure (ssh's words), anything else is the remote command's exit status.
    private func finish(_ result: inout FleetHostResult, exit: Int32?, abort: FleetAbort, program: String) {
        if result.markStopped(by: abort.reason) { return }
        guard let exit else { return }
        let said = OpenSSHFailure(stderr: result.stderr, exit: exit)
        if let outcome = said.outcome {
            result.outcome = outcome
            result.error = program + ": " + said.line
            if outcome == .hostKeyRefused {
                result.fix =
                    "check the host's key, then: sshelf trust \(ShellWord.quote(Display.safe(result.name))) --replace"
            }
            return
        }
        result.exitStatus = exit
        result.outcome = exit == 0 ? .succeeded : .failed
    }
}

/// What ssh's (or scp's) own last line says when it exits 255: which fleet outcome its failure is (nil: the remote
/// command's own status, or nothing ssh said).
struct OpenSSHFailure {
    var line = ""
    var outcome: FleetHostResult.Outcome?

    init(stderr: [UInt8], exit: Int32) {
        guard exit == 255 else { return }
        guard let last = Self.lastLine(stderr) else { return }
        line = last
        let text = String(decoding: stderr.suffix(4096), as: UTF8.self)
        if text.contains("Host key verification failed") || text.contains("REMOTE HOST IDENTIFICATION HAS CHANGED") {
            outcome = .hostKeyRefused
        } else if text.contains("Permission denied (") || text.contains("Too many authentication failures") {
            outcome = .loginFailed
        } else if [
            "Connection refused", "Could not resolve hostname", "No route to host", "Connection timed out",
            "Network is unreachable", "Operation timed out",
        ].contains(where: { line.contains($0) }) {
            outcome = .unreachable
        } else if line.hasPrefix("ssh:") || line.hasPrefix("Connection to ") || line.hasPrefix("client_loop:")
            || line.hasPrefix("Timeout, server ") || line.contains("closed by remote host")
        {
            outcome = .connectionLost
        }
    }

    /// The last line with text on it, cleaned (a server's words may be in it).
    static func lastLine(_ stderr: [UInt8]) -> String? {
        let lines = String(decoding: stderr.suffix(4096), as: UTF8.self).split(whereSeparator: \.isNewline)
        return lines.last(where: { $0.contains { !$0.isWhitespace } }).map { UntrustedText.clean(String($0)) }
    }
}
