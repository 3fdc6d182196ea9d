// SSHConnectionWatch: a connection held open between commands (a warm keeper) keeping watch on its server, as ssh's
// ControlPersist master does with ServerAlive*: after ServerAliveInterval of silence a probe the server must answer
// (Session.probe: an answer libssh2 frees, unlike a keepalive's reply, which it would keep for the connection's
// life), whatever the server sends read even while no command runs (the server's own keepalives, which libssh2
// answers as it reads them), and the server given up on once silent for ServerAliveInterval × (ServerAliveCountMax
// + 1).
import CLibSSH2
import FoundationEssentials
import Glibc

extension SSHConnection {
    /// Starts the watch, once logged in (blocking mode). libssh2 has no call that only reads the connection: every
    /// channel read starts by reading all the transport has, whichever channel it is for. So a session channel is
    /// opened and closed at once (the server frees it: no MaxSessions slot is held) and kept as the reader of the
    /// watch. Its keepalives ask for no reply: the watch probes instead (`keepWatch`).
    public func startWatch() throws(SSHError) {
        let session = target
        let liveness = Liveness(targetSettings, host: targetName)
        session.setTimeout(seconds: liveness.deadAfter ?? 0)
        defer { session.setTimeout(seconds: 0) }
        let reader = try session.openSessionChannel()
        reader.close()
        watchReader = reader
    }

    /// Sends a keepalive when one is due and, when `reading` (the holder is not holding the server back for a slow
    /// caller: then its silence proves nothing), reads what the server sent and judges it. Throws `.timedOut` (the
    /// message says so: "the connection to HOST stopped answering (ServerAliveInterval 15 × 3) …") once the server
    /// stopped answering, `.disconnected` when the connection broke. Returns how long the holder may sleep before
    /// the next call (it should also wake when the session's socket is readable: `watchPoll`).
    public func keepWatch(reading: Bool) throws(SSHError) -> Duration {
        let session = target
        let next = Duration.seconds(max(1, session.keepaliveTick()))
        guard reading, let reader = watchReader else { return next }
        var byte: CChar = 0
        let code = libssh2_channel_read_ex(reader.raw, 0, &byte, 1)
        if code < 0 && code != Int(LIBSSH2_ERROR_EAGAIN) && code != Int(LIBSSH2_ERROR_CHANNEL_CLOSED) {
            throw SSHError(.disconnected, "the connection to \(targetName) was lost", library: session.lastError())
        }
        let liveness = Liveness(targetSettings, host: targetName)
        guard var left = liveness.remaining(session) else { return next }
        if left < 0 { throw liveness.stoppedAnswering() }
        if try probeIfQuiet(session, liveness: liveness, left: left) {
            left = liveness.remaining(session) ?? left
        }
        return min(next, .milliseconds(Int(left * 1000) + 1))
    }

    /// After an interval of silence, and at most once an interval, asks the server for an answer (waiting no longer
    /// than the silence still allowed). True when it asked.
    private func probeIfQuiet(_ session: Session, liveness: Liveness, left: Double) throws(SSHError) -> Bool {
        let now = ContinuousClock.now
        guard session.context.silence >= Double(liveness.interval), now >= nextProbe,
            session.blockDirections & Int16(POLLOUT) == 0
        else { return false }
        nextProbe = now + .seconds(max(1, liveness.interval))
        switch session.probe(timeout: max(0.001, left)) {
        case .answered: return true
        case .silent: throw liveness.stoppedAnswering()
        case .lost:
            throw SSHError(.disconnected, "the connection to \(targetName) was lost", library: session.lastError())
        }
    }

    /// What the holder polls while it watches and no command reads: the session's socket, for reading.
    public func watchPoll() -> pollfd {
        pollfd(fd: isClosed ? -1 : target.socket, events: Int16(POLLIN), revents: 0)
    }

    /// The watch's verdict when a blocking step (a command's channel opening) timed out: the server stopped
    /// answering, as keepalives would have found.
    var stoppedAnswering: SSHError { Liveness(targetSettings, host: targetName).stoppedAnswering() }

    /// The session's timeout for a blocking step of a watched connection: as long as the server may stay silent
    /// (0, none, without ServerAliveInterval).
    var watchTimeout: Double { Liveness(targetSettings, host: targetName).deadAfter ?? 0 }
}
