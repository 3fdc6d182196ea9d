// SessionCommand: one command on its own channel of a connection that several commands share at once — started,
// read, fed and ended without waiting on any one of them, so that one thread can drive them all (a libssh2 session
// must only be used from one thread at a time). The warm keeper serves its callers with these.
import CLibSSH2
import FoundationEssentials
import Glibc

public final class SessionCommand {
    private let channel: Channel
    private var closeSent = false

    public enum Output: Equatable {
        case stdout(Int), stderr(Int)
        /// Nothing more until the session's socket is ready again.
        case wouldBlock
        /// The command's output has ended (the remote side sent EOF and everything queued was read).
        case eof
    }

    init(channel: Channel) { self.channel = channel }

    /// The next chunk of stdout or stderr, whichever has one.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(SSHError) -> Output {
        let out = try channel.read(stream: 0, into: buffer)
        if case .data(let count) = out { return .stdout(count) }
        if case .data(let count) = try channel.read(stream: Int32(SSH_EXTENDED_DATA_STDERR), into: buffer) {
            return .stderr(count)
        }
        if case .eof = out { return .eof }
        return .wouldBlock
    }

    /// Writes to the command's stdin as much as the window takes (0 when it would block).
    public func write(_ bytes: UnsafeRawBufferPointer) throws(SSHError) -> Int { try channel.write(bytes) }

    /// Sends EOF on stdin; false while it would block (call again).
    public func sendEOF() -> Bool { libssh2_channel_send_eof(channel.raw) != LIBSSH2_ERROR_EAGAIN }

    /// After the output's EOF: closes the channel and returns how the command ended, or nil while that would block.
    public func finish() -> RemoteExit? {
        if !closeSent {
            guard libssh2_channel_close(channel.raw) != LIBSSH2_ERROR_EAGAIN else { return nil }
            closeSent = true
        }
        // Until the server's close, the exit status may still be on its way.
        guard libssh2_channel_wait_closed(channel.raw) != LIBSSH2_ERROR_EAGAIN else { return nil }
        return channel.exit()
    }

    /// Ends a command nobody waits for any more (Channel.stopCommand: TERM where the library can, then the close).
    /// False while that would block (call again).
    public func stop() -> Bool { channel.stopCommand() }
}

extension SSHConnection {
    /// Opens a channel and starts `command` on it (waiting for those round trips, no longer than the server may
    /// stay silent: ServerAliveInterval × (ServerAliveCountMax + 1)), then leaves the session non-blocking for the
    /// commands' loop. A server that refuses the channel or the command (sshd's MaxSessions) throws
    /// `.channelFailed` and the session goes on; one that does not answer in time throws the watch's `.timedOut`; a
    /// session that broke throws `.disconnected`.
    public func startCommand(_ command: String) throws(SSHError) -> SessionCommand {
        let session = target
        session.setBlocking(true)
        session.setTimeout(seconds: watchTimeout)
        defer {
            session.setTimeout(seconds: 0)
            session.setBlocking(false)
        }
        do throws(SSHError) {
            let channel = try session.openSessionChannel()
            sendEnvironment(channel)
            try channel.exec(command)
            return SessionCommand(channel: channel)
        } catch {
            let code = session.lastErrorCode()
            if code == LIBSSH2_ERROR_TIMEOUT { throw stoppedAnswering }
            guard code == LIBSSH2_ERROR_CHANNEL_FAILURE || code == LIBSSH2_ERROR_CHANNEL_REQUEST_DENIED else {
                throw SSHError(.disconnected, error.message, library: error.libraryMessage)
            }
            throw error
        }
    }

    /// Bytes read off the session's socket so far. Every step of a SessionCommand first reads all the socket has,
    /// whichever channel it is for, and the socket does not announce again what it handed over: the loop driving
    /// them steps them all again until a round moved nothing and this did not change, before it polls.
    public var bytesReceived: UInt64 { target.context.received }

    /// What the loop driving SessionCommands polls: the session's socket, for reading when `reading` (some command
    /// takes output) and in whichever direction libssh2 is waiting on.
    public func commandsPoll(reading: Bool) -> pollfd {
        let session = target
        let events = session.blockDirections | (reading ? Int16(POLLIN) : 0)
        return pollfd(fd: events == 0 ? -1 : session.socket, events: events, revents: 0)
    }
}
