// SSHConnectionAbort: stops a logged-in connection from another thread (a fleet run's command timeout, a second
// Ctrl-C). While `exec` runs a command it listens (CommandStop): it sends the command TERM where the library can
// (libssh2 1.11), closes its channel and ends, as a warm keeper does for a caller that left. Otherwise every hop's
// socket is shut down both ways, so a call blocked on it returns at once with an error and nothing more is sent.
// The caller keeps abort() and close() apart (one lock), as close() frees the sessions.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfSystem

extension SSHConnection {
    public func abort() {
        guard !isClosed else { return }
        if commandStop.request() { return }
        for session in sessions { shutdown(session.socket, Int32(SHUT_RDWR)) }
    }
}

/// A stop asked for by another thread while `exec`'s loop runs a command: the loop watches `readEnd`, and stops the
/// command itself, on its own thread (a libssh2 session is used from one thread at a time).
final class CommandStop: @unchecked Sendable {
    private let lock = Lock()
    private let wake = WakePipe()
    private var listening = false
    private var requested = false

    /// The loop starts listening; nil when a stop came first (the loop stops the command at once).
    func listen() -> Int32? {
        lock.lock()
        defer { lock.unlock() }
        guard !requested else { return nil }
        listening = true
        return wake.readEnd
    }

    /// The loop is over: a later stop shuts the sockets down instead.
    func stopListening() {
        lock.lock()
        defer { lock.unlock() }
        listening = false
    }

    /// True when a listening loop will stop the command; false when nothing listens now.
    func request() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        requested = true
        guard listening, wake.readEnd >= 0 else { return false }
        wake.signal()
        return true
    }
}
