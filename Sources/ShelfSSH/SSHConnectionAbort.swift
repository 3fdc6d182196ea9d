// SSHConnectionAbort: stops a logged-in connection from another thread (a fleet run's command timeout, a second
// Ctrl-C): every hop's socket is shut down both ways, so a command blocked on it returns at once with an error and
// nothing more is sent. The caller keeps abort() and close() apart (one lock), as close() frees the sessions.
import FoundationEssentials
import Glibc

extension SSHConnection {
    public func abort() {
        guard !isClosed else { return }
        for session in sessions { shutdown(session.socket, Int32(SHUT_RDWR)) }
    }
}
