// FleetConnect: one host of a fleet command, connected as a login is (ConnectPlan through SSHConnector: every hop's
// host key verified before a credential is read), but with nobody to ask — an unknown key is accepted only with
// --accept-new, a changed one never, no password is prompted for — and stoppable from another thread (FleetAbort).
// The body (a command, a file copy) runs on the logged-in connection.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfSSH
import ShelfSystem

public enum FleetConnect {
    /// Connects `plan` and runs `body`; the result says how it ended. `connected` is called once logged in (the
    /// command timeout counts from there). `credentials` must be this host's own source (sources keep state).
    public static func run(
        _ plan: ConnectPlan, options: ConnectOptions, credentials: CredentialSource,
        acceptNew: Bool, abort: FleetAbort, connected: () -> Void,
        body: (SSHConnection, inout FleetHostResult) throws(SSHError) -> Void
    ) -> FleetHostResult {
        var result = FleetHostResult(name: plan.target.name, hostID: plan.target.id, outcome: .failed)
        result.started = Date()
        attempt(
            plan, options: options, credentials: credentials, acceptNew: acceptNew, abort: abort, connected: connected,
            body: body, into: &result)
        result.finished = Date()
        return result
    }

    private static func attempt(
        _ plan: ConnectPlan, options: ConnectOptions, credentials: CredentialSource,
        acceptNew: Bool, abort: FleetAbort, connected: () -> Void,
        body: (SSHConnection, inout FleetHostResult) throws(SSHError) -> Void,
        into result: inout FleetHostResult
    ) {
        var options = options
        options.cancellation = abort.cancellation
        // Nobody is shown a banner in a fleet run: the first key goes at once, one round trip less per host.
        options.keyBeforeMethods = true
        let prompts = FleetPrompts(acceptNew: acceptNew, target: plan.endpoints[plan.endpoints.count - 1].name)
        let connector = SSHConnector(options: options, credentials: credentials, delegate: prompts)
        if let refusal = plan.ownClientRefusal {
            fail(&result, refusal, abort: abort, loggedIn: false)
            return
        }
        let connection: SSHConnection
        do {
            connection = try connector.connect(plan.endpoints)
        } catch {
            result.fingerprint = prompts.fingerprint
            var pins = ConnectOutcome()
            pins.pinnedKeys = connector.lastOutcome.pinnedKeys
            result.connectOutcome = pins
            fail(&result, error, abort: abort, loggedIn: false)
            return
        }
        result.fingerprint = prompts.fingerprint
        result.connectOutcome = connection.outcome
        guard abort.attach(connection) else {
            fail(&result, SSHError(.cancelled, "cancelled"), abort: abort, loggedIn: true)
            return
        }
        defer { abort.closeConnection() }
        connected()
        do {
            try body(connection, &result)
        } catch {
            fail(&result, error, abort: abort, loggedIn: true)
        }
    }

    /// Runs `command` on the connection and keeps what it printed and its exit status; `observe` (`run --stream`)
    /// sees each chunk as it arrives. `terminal` (a TERM value, `run -t`): the command gets a PTY; `sudo` (`run
    /// --sudo`, on a PTY): the command runs under sudo and its password prompt is answered (FleetSudo).
    public static func exec(
        _ command: String, terminal: String? = nil, sudo: FleetSudo? = nil,
        observe: ((UnsafeRawBufferPointer, _ toStderr: Bool) -> Void)? = nil
    ) -> (SSHConnection, inout FleetHostResult) throws(SSHError) -> Void {
        { connection, result throws(SSHError) in
            var output = result
            let deliver = { (bytes: UnsafeRawBufferPointer, toStderr: Bool) in
                observe?(bytes, toStderr)
                output.append(bytes, toStderr: toStderr)
            }
            // The terminal's input, for sudo's answer: a pipe whose write end only the watch below writes to.
            var answer: [Int32] = [-1, -1]
            if sudo != nil, CloseOnExec.pipe(&answer) != 0 {
                throw SSHError(.channelFailed, "could not make a pipe for sudo's password")
            }
            defer { for fd in answer where fd >= 0 { close(fd) } }
            var watch = sudo.map { PromptWatch(marker: $0.marker) }
            var prompts = 0
            let exit: RemoteExit
            do throws(SSHError) {
                exit = try connection.exec(
                    sudo?.command(command) ?? command, input: sudo == nil ? nil : answer[0],
                    terminal: sudo == nil ? terminal : terminal ?? "xterm",
                    stdout: { chunk in
                        guard let sudo, var seen = watch else { return deliver(chunk, false) }
                        let (kept, asked) = seen.feed(chunk)
                        watch = seen
                        kept.withUnsafeBytes { deliver($0, false) }
                        guard asked > 0, answer[1] >= 0 else { return }
                        prompts += asked
                        if prompts == 1 {
                            sudo.type(into: answer[1])
                        } else {
                            // Asked again: the password was wrong. Ctrl-C for sudo, then the command is stopped
                            // here: the answer is known, and a host that ignores the Ctrl-C must not hold the run
                            // until the command timeout.
                            var interrupt: UInt8 = 0x03
                            _ = write(answer[1], &interrupt, 1)
                            close(answer[1])
                            answer[1] = -1
                            connection.abort()
                        }
                    },
                    stderr: { deliver($0, true) })
            } catch {
                // Cut (the command timeout, Ctrl-C, a refused sudo) or lost: what the host printed until then is
                // kept, as pssh and clush keep it — often the clue to why it hung.
                if var seen = watch { seen.finish().withUnsafeBytes { deliver($0, false) } }
                result = output
                if prompts > 1 && error.kind == .cancelled {
                    result.outcome = .failed
                    result.error = Self.sudoRefused
                    return
                }
                throw error
            }
            if var seen = watch { seen.finish().withUnsafeBytes { deliver($0, false) } }
            result = output
            result.exitStatus = exit.exitCode
            switch exit {
            case .status(0): result.outcome = .succeeded
            case .status: result.outcome = .failed
            case .signal(let name):
                result.outcome = .failed
                result.error = "ended by signal \(UntrustedText.clean(name))"
            case .disconnected:
                result.outcome = .connectionLost
                result.error = "the connection ended before the command did"
            }
            if prompts > 1 {
                result.outcome = .failed
                result.error = sudoRefused
            }
        }
    }

    public static let sudoRefused = "sudo asked for the password again: it was refused (sshelf typed it once)"

    private static func fail(_ result: inout FleetHostResult, _ error: SSHError, abort: FleetAbort, loggedIn: Bool) {
        result.exitStatus = nil
        if result.markStopped(by: abort.reason) { return }
        result.error = error.message
        result.fix = error.hint
        result.handshakeFailed = error.kind == .handshakeFailed && !loggedIn
        result.postQuantumOffer = error.postQuantumOnly
        switch error.kind {
        case .hostKeyUnknown, .hostKeyChanged, .hostKeyOtherType, .hostKeyRevoked:
            result.outcome = .hostKeyRefused
        case .credentialNotSynced, .credentialUnavailable, .authenticationFailed, .rsaSignatureUnsupported, .cancelled:
            result.outcome = .loginFailed
        case .disconnected, .timedOut, .network, .connectionRefused, .unreachable:
            // Logged in, then the host stopped answering or the connection broke: not a command's failure.
            result.outcome = loggedIn ? .connectionLost : .unreachable
        default:
            result.outcome = loggedIn ? .failed : .unreachable
        }
    }
}

/// The connect delegate of a fleet host: no questions. An unknown key is pinned only with --accept-new (a changed
/// one never reaches here: it is a hard failure); nothing is typed; the target's verified fingerprint is kept.
final class FleetPrompts: ConnectDelegate {
    let acceptNew: Bool
    let target: String
    private(set) var fingerprint: String?

    init(acceptNew: Bool, target: String) {
        self.acceptNew = acceptNew
        self.target = target
    }

    func decide(_ question: HostKeyQuestion) -> HostKeyDecision {
        acceptNew && question.reason == .unknown ? .acceptAndRemember : .refuse
    }
    func askPassword(_ request: PasswordRequest) -> PasswordAnswer? { nil }
    func answer(_ challenge: KeyboardChallenge) -> [SecretBytes]? { nil }
    func note(_ event: ConnectEvent) {
        if case .hostKeyVerified(let hop, let fingerprint, _) = event, hop == target { self.fingerprint = fingerprint }
    }
}
