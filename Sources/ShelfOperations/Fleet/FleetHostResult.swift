// FleetHostResult: what one host of a fleet run did — how it ended, its exit status and output, the host key that
// was verified before anything was sent, and when it started and ended. Also FleetAbort, the handle another thread
// stops a host's attempt with (command timeout, second Ctrl-C).
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfSystem
import ShelfSSH

public struct FleetHostResult: Sendable {
    public enum Outcome: String, Sendable, Codable {
        /// The command ran and exited 0.
        case succeeded
        /// The command ran and exited non-zero (or was ended by a signal on the host).
        case failed
        /// Not reached: no answer within the connect timeout, refused, a name that does not resolve.
        case unreachable
        /// The host's key is unknown (and --accept-new was not given), changed or revoked: skipped, nothing sent.
        case hostKeyRefused = "host-key-refused"
        /// Reached and verified, but the login failed (no usable credential, refused).
        case loginFailed = "login-failed"
        /// Logged in, then the connection was lost before the command ended: the host stopped answering (its
        /// ServerAliveInterval × ServerAliveCountMax passed in silence) or the connection was reset or closed.
        case connectionLost = "connection-lost"
        /// The command ran longer than the command timeout and was cut.
        case timedOut = "timed-out"
        /// Stopped by a second Ctrl-C while it ran.
        case killed
        /// Never started: a canary failed, or Ctrl-C stopped the run first.
        case notStarted = "not-started"

        /// Whether the host was not reached or its command did not finish (not reached, key refused, login failed,
        /// connection lost, timed out), for the exit status (255) of the run — never a command's own exit status.
        public var isConnectionFailure: Bool {
            [.unreachable, .hostKeyRefused, .loginFailed, .connectionLost, .timedOut].contains(self)
        }
    }

    public var name: String
    public var hostID: UUID
    public var outcome: Outcome
    /// The remote command's exit status, when it ran to its end.
    public var exitStatus: Int32?
    public var stdout: [UInt8] = []
    public var stderr: [UInt8] = []
    /// Whether stdout or stderr was cut at `FleetHostResult.outputLimit`.
    public var truncated = false
    /// Why it did not succeed, in words (a connection error, a timeout).
    public var error: String?
    /// What to do about it, as `exec` says it (`sshelf trust HOST --replace --fingerprint …` for a changed key).
    public var fix: String?
    /// The target's host key fingerprint, verified before any credential was read.
    public var fingerprint: String?
    /// What it did, in words, when that is not an output (a copy: files and bytes).
    public var note: String?
    /// Ran through a warm session (`exec --persist`) instead of a new connection.
    public var warm = false
    /// Went through OpenSSH's ssh or scp, and why: sshelf's own client cannot log in with the loaded libssh2 (an RSA
    /// key on 1.10, a security key; OpenSSHHandover.needed).
    public var openSSH: String?
    /// sshelf's own client failed the key exchange, before any login: the host may offer only post-quantum key
    /// exchanges (which libssh2 has none of), and is then run again through OpenSSH
    /// (`OpenSSHHandover.postQuantumOnly`).
    public var handshakeFailed = false
    /// A hop behind a jump host whose server offered only post-quantum key exchanges (SSHError.postQuantumOnly).
    public var postQuantumOffer: PostQuantumOffer?
    public var started: Date?
    public var finished: Date?
    /// Keys pinned on --accept-new while connecting, for the caller to save on the host records.
    public var connectOutcome: ConnectOutcome?

    /// Output kept per stream and host; more is dropped and the result says so.
    public static let outputLimit = 8 << 20

    public init(name: String, hostID: UUID, outcome: Outcome) {
        self.name = name
        self.hostID = hostID
        self.outcome = outcome
    }

    public var seconds: Double? {
        guard let started, let finished else { return nil }
        return finished.timeIntervalSince(started)
    }

    public mutating func append(_ bytes: UnsafeRawBufferPointer, toStderr: Bool) {
        let room = Self.outputLimit - (toStderr ? stderr.count : stdout.count)
        if bytes.count > room { truncated = true }
        let kept = UnsafeRawBufferPointer(rebasing: bytes.prefix(max(0, room)))
        if toStderr { stderr.append(contentsOf: kept) } else { stdout.append(contentsOf: kept) }
    }
}

extension FleetHostResult {
    /// The host's outcome when `reason` cut it (the command timeout, a Ctrl-C), said the same way for every path a
    /// host can run through (sshelf's own login, a warm session, OpenSSH); false, and nothing changed, when nothing
    /// cut it.
    public mutating func markStopped(by reason: FleetAbort.Reason?) -> Bool {
        switch reason {
        case .timedOut?:
            outcome = .timedOut
            error = "cut at the command timeout"
        case .killed?:
            outcome = .killed
            error = "stopped by a second Ctrl-C"
        case .interrupted?:
            outcome = .killed
            error = "stopped by Ctrl-C"
        case nil:
            return false
        }
        return true
    }
}

/// Stops one host's attempt from another thread: a connect in progress is cancelled, a command in progress has its
/// connection's sockets shut down. The first reason given is the one reported. A job that stops by itself (a copy:
/// it removes its temporary file first) is asked with `request` and cut with `abort` only if it does not end.
public final class FleetAbort: @unchecked Sendable {
    /// `killed`: a second Ctrl-C; `interrupted`: the first Ctrl-C of a job that stops at once (`cp`).
    public enum Reason: Sendable { case timedOut, killed, interrupted }
    private let lock = Lock()
    private var connection: SSHConnection?
    private var stopped: Reason?
    /// A copy of a socket the host's command runs over outside an SSHConnection (a warm session's), shut down on abort.
    private var socket: Int32 = -1
    /// The OpenSSH process a host runs through (OpenSSHFleet), told to stop on abort.
    private var child: StoppableChild?
    let cancellation = ConnectCancellation()

    public init() {}

    public var reason: Reason? {
        lock.lock()
        defer { lock.unlock() }
        return stopped
    }

    public func abort(_ reason: Reason) {
        lock.lock()
        defer { lock.unlock() }
        if stopped == nil { stopped = reason }
        cancellation.cancel()
        connection?.abort()
        if socket >= 0 { shutdown(socket, Int32(SHUT_RDWR)) }
        child?.stop()
    }

    /// Asks the job to stop by itself: the reason is set (the job checks it between steps) and a connect in progress
    /// is cancelled, but a logged-in connection is left open for the job to clean up on.
    public func request(_ reason: Reason) {
        lock.lock()
        defer { lock.unlock() }
        if stopped == nil { stopped = reason }
        cancellation.cancel()
    }

    /// Watches `fd` (kept as a copy, so its number cannot be reused under us); false when stopped already.
    public func attach(socket fd: Int32) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard stopped == nil else { return false }
        if socket >= 0 { close(socket) }
        socket = CloseOnExec.duplicate(fd)
        return true
    }

    /// Watches the OpenSSH process a host runs through; false (and it is told to stop) when stopped already.
    public func attach(child process: StoppableChild) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        child = process
        guard stopped == nil else {
            process.stop()
            return false
        }
        return true
    }

    public func detachChild() {
        lock.lock()
        defer { lock.unlock() }
        child = nil
    }

    public func detachSocket() {
        lock.lock()
        defer { lock.unlock() }
        if socket >= 0 { close(socket) }
        socket = -1
    }

    /// Hands over the logged-in connection; false (and it is closed) when the host was stopped meanwhile.
    func attach(_ connection: SSHConnection) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard stopped == nil else {
            connection.close()
            return false
        }
        self.connection = connection
        return true
    }

    /// Closes the connection under the lock, so an abort never touches freed sessions.
    func closeConnection() {
        lock.lock()
        defer { lock.unlock() }
        connection?.close()
        connection = nil
    }
}
