// ForwardEngine's half-sent-packet rule: after an EAGAIN with part of a packet still inside libssh2, only the same
// call may run until it finishes (`pending`); and which libssh2 answers mean the session is lost.
import CLibSSH2
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfSystem

extension ForwardEngine {

    func may(_ op: Op) -> Bool { pending == nil || pending == op }

    func pendingBelongs(to link: ForwardLink) -> Bool {
        switch pending {
        case .read(let id), .write(let id), .eof(let id), .free(let id), .open(let id): id == link.id
        case .keepalive, nil: false
        }
    }

    /// EAGAIN with outbound bytes left inside libssh2 means this call owns the half-sent packet.
    func noteEAGAIN(_ op: Op) {
        if libssh2_session_block_directions(session.raw) & LIBSSH2_SESSION_BLOCK_OUTBOUND != 0 {
            pending = op
        } else if pending == op {
            pending = nil
        }
    }

    func settleDone(_ op: Op) {
        if pending == op { pending = nil }
    }

    func settle(_ op: Op, code: Int32) throws(SSHError) {
        if code == LIBSSH2_ERROR_EAGAIN {
            noteEAGAIN(op)
            return
        }
        settleDone(op)
        if code < 0, isSessionLost(code) { throw lost() }
    }

    func isSessionLost(_ code: Int32) -> Bool {
        let lostCodes: [Int32] = [
            LIBSSH2_ERROR_SOCKET_DISCONNECT, LIBSSH2_ERROR_SOCKET_RECV, LIBSSH2_ERROR_SOCKET_SEND,
            LIBSSH2_ERROR_SOCKET_TIMEOUT, LIBSSH2_ERROR_TIMEOUT,
        ]
        return lostCodes.contains(code) || lostCodes.contains(libssh2_session_last_errno(session.raw))
    }

    func lost() -> SSHError {
        SSHError(.disconnected, "the connection to \(name) was lost", library: session.lastError())
    }
}
