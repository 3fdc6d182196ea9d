// SftpTurns: several SFTP channels of one connection used from several threads at once (a copy's lanes, each with a
// file of its own: FleetCopyLanes). libssh2's session is safe in one thread at a time only, so every SFTP call takes
// the connection in turn, non-blocking: a call whose answer has not come gives the connection back at once, and its
// caller waits — one of the waiting callers polls the socket, the others wait for it to say something arrived — then
// tries again. libssh2's sends go to a send buffer (ForwardSendBuffer), as in the forward engine, so one channel's
// half-sent packet never holds up another's request, and libssh2 1.10 never takes another call's packet for the rest
// of a half-sent one; when the buffer is full that call alone may run until its packet is out.
import CLibSSH2
import FoundationEssentials
import Glibc
import ShelfCore

final class SftpTurns: @unchecked Sendable {
    private let session: Session
    private let condition = Condition()
    private let sendBuffer: ForwardSendBuffer
    private let installed: ForwardSendBuffer.Installed
    /// Whether a caller is in poll() on the socket; the others wait for `generation` to move.
    private var polling = false
    /// Moves whenever something may have changed for a waiting caller: bytes read off the socket (by any call: libssh2
    /// keeps another channel's packets for it), a call finished, the socket said it is ready.
    private var generation = 0
    /// The caller whose packet libssh2 holds half-sent: nobody else may call until it is out.
    private var owner: ObjectIdentifier?
    /// A call failed without an answer from the server: the connection is gone for every channel.
    private var lostFlag = false

    /// Puts the session into non-blocking mode with its sends buffered, until `end`.
    init(_ session: Session) {
        self.session = session
        session.setBlocking(false)
        sendBuffer = ForwardSendBuffer(socket: session.socket)
        installed = sendBuffer.install(on: session)
    }

    /// Sends what is left and gives the session back its own send and blocking mode (no caller is left).
    func end() {
        sendBuffer.drain(timeout: 2)
        sendBuffer.uninstall(installed, from: session)
        session.setBlocking(true)
    }

    var lost: Bool {
        condition.lock()
        defer { condition.unlock() }
        return lostFlag
    }

    func markLost() {
        condition.lock()
        lostFlag = true
        condition.unlock()
    }

    /// Runs `body` with the connection to itself (for reading libssh2's session-wide error text).
    func alone<T>(_ body: () -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }

    /// Calls `body` (one libssh2 call for `caller`'s channel) until it is no longer `wouldBlock`, waiting for the
    /// socket in between, and returns its answer.
    func run<T>(for caller: AnyObject, _ body: () -> T, wouldBlock: (T) -> Bool) -> T {
        let me = ObjectIdentifier(caller)
        condition.lock()
        defer { condition.unlock() }
        while true {
            while let owner, owner != me { condition.wait() }
            let before = session.context.received
            let result = body()
            sendBuffer.flush()
            let read = session.context.received != before
            guard wouldBlock(result) else {
                if owner == me { owner = nil }
                generation &+= 1
                condition.broadcast()
                return result
            }
            if libssh2_session_block_directions(session.raw) & LIBSSH2_SESSION_BLOCK_OUTBOUND != 0
                && !sendBuffer.isEmpty
            {
                owner = me
            } else if owner == me {
                owner = nil
                condition.broadcast()
            }
            if read {
                // What was read may be another caller's answer (they try again), or the start of this one's.
                generation &+= 1
                condition.broadcast()
                continue
            }
            if polling {
                let seen = generation
                while generation == seen { condition.wait() }
                continue
            }
            polling = true
            var events = Int16(POLLIN)
            if !sendBuffer.isEmpty { events |= Int16(POLLOUT) }
            var descriptor = pollfd(fd: session.socket, events: events, revents: 0)
            condition.unlock()
            // A bound on the wait only as a safety net: every retry is cheap, and nothing is lost by one.
            _ = poll(&descriptor, 1, 1000)
            condition.lock()
            polling = false
            generation &+= 1
            condition.broadcast()
        }
    }
}
