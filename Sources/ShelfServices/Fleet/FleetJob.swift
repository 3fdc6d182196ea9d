// FleetJob: one host's part of a fleet run (`sshelf run` and the TUI's run pane): the host's warm session when one
// runs, else a connection made as a login is (key verified before any credential, nothing asked), or OpenSSH's ssh
// for a host the loaded libssh2 cannot log in (OpenSSHFleet), or a server that offers only post-quantum key exchange.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfSSH

extension FleetSession {
    /// One host's part of a run, for the CLI and the TUI alike: its warm session when one runs, else a connection
    /// made as a login is (nothing asked). `warm: false` (a run as another user, `-l`; a terminal, `-t`, `--sudo`):
    /// never the warm session, which is logged in as the host's own user and runs commands without a terminal.
    /// `stream` (`run --stream`): each host's lines printed as they arrive.
    public static func job(
        _ command: String, session: FleetSession, options: ConnectOptions, acceptNew: Bool, warm: Bool = true,
        terminal: String? = nil, sudo: FleetSudo? = nil, stream: FleetStream? = nil, context: AppContext
    ) -> FleetSession.Job {
        { plan, abort, connected in
            let lines = stream?.host(plan.target.name)
            defer { lines?.finish() }
            let observe = lines.map { lines in
                { (bytes: UnsafeRawBufferPointer, toStderr: Bool) in
                    lines.feed(bytes, toStderr: toStderr)
                }
            }
            // A host the loaded libssh2 cannot log in (an RSA key on 1.10, a security key) goes through OpenSSH,
            // with the run's user, terminal, sudo and streaming as here.
            if let why = OpenSSHFleet.reason(plan) {
                return session.openSSH.run(
                    command, plan: plan, why: why, connectTimeout: options.connectTimeout, abort: abort,
                    terminal: terminal, sudo: sudo, observe: observe, connected: connected)
            }
            if warm,
                let result = warmRun(
                    command, plan: plan, abort: abort, locations: context.locations, observe: observe,
                    connected: connected)
            {
                return result
            }
            let result = FleetConnect.run(
                plan, options: options, credentials: session.credentials(), acceptNew: acceptNew,
                abort: abort, connected: connected,
                body: FleetConnect.exec(command, terminal: terminal, sudo: sudo, observe: observe))
            // A server that offers only post-quantum key exchange fails libssh2's handshake: OpenSSH's ssh has one.
            if result.handshakeFailed,
                let why = OpenSSHHandover.postQuantumOnly(
                    plan, offer: result.postQuantumOffer, timeout: options.connectTimeout)
            {
                return session.openSSH.run(
                    command, plan: plan, why: why, connectTimeout: options.connectTimeout, abort: abort,
                    terminal: terminal, sudo: sudo, observe: observe, connected: connected)
            }
            return result
        }
    }

    /// The command through the host's warm session, when one is running (nil: connect as usual). Its key was
    /// verified when the keeper logged in; the fingerprint logged is the one pinned on the host.
    static func warmRun(
        _ command: String, plan: ConnectPlan, abort: FleetAbort, locations: DataLocations,
        observe: ((UnsafeRawBufferPointer, _ toStderr: Bool) -> Void)? = nil, connected: @escaping @Sendable () -> Void
    ) -> FleetHostResult? {
        var result = FleetHostResult(name: plan.target.name, hostID: plan.target.id, outcome: .failed)
        result.started = Date()
        defer { abort.detachSocket() }
        var output = result
        var took = false
        var lost = false
        let status = WarmClient.exec(
            command, stdin: false, plan: plan, locations: locations,
            // The keeper took the request: the command runs from here (its timeout counts, the pane says running).
            onSocket: { fd in
                guard abort.attach(socket: fd) else { return false }
                took = true
                connected()
                return true
            },
            output: { toStderr, bytes in
                bytes.withUnsafeBytes {
                    observe?($0, toStderr)
                    output.append($0, toStderr: toStderr)
                }
            },
            failure: {
                lost = true
                output.error = UntrustedText.clean($0)
            })
        // A keeper cut off by a timeout or a second Ctrl-C has no status, and ran on the warm session all the same.
        guard status != nil || (took && abort.reason != nil) else { return nil }
        result = output
        result.finished = Date()
        result.warm = true
        // Nothing new to pin, but it counts as a connection (last connected), as a warm exec does.
        result.connectOutcome = ConnectOutcome()
        result.fingerprint = plan.target.pinnedHostKey.flatMap(FleetSession.fingerprint)
        guard !result.markStopped(by: abort.reason) else { return result }
        if lost {
            // The keeper's session broke or stopped answering mid-command: no exit status came, as on a new login.
            result.outcome = .connectionLost
        } else {
            result.exitStatus = status
            result.outcome = status == 0 ? .succeeded : .failed
        }
        return result
    }
}
