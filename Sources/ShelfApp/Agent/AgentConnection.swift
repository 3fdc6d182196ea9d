// AgentConnection: what one client connection has told the agent — who is at the other end (SO_PEERCRED), and the
// servers its ssh session goes through and to, from session-bind@openssh.com once each server's signature over its
// session identifier checks out (AgentBindings keeps them and says what a host-bound key may do). Used by one
// thread only (its connection's).
import FoundationEssentials
import ShelfCore
import ShelfVault

final class AgentConnection {
    let peer: PrivateSocket.Peer
    /// `ssh (pid 4242)`, for the logs.
    let who: String
    private(set) var bindings = AgentBindings()

    init(peer: PrivateSocket.Peer) {
        self.peer = peer
        who = AgentPeerName.describe(peer)
    }

    /// Records a binding whose signature verifies (OpenSSH's rules: AgentBindings.record).
    func bind(_ binding: AgentSessionBind) -> AgentBindOutcome {
        let verified = HostKeySignature.verify(
            hostKey: binding.hostKey, signature: binding.signature, data: binding.sessionID)
        return bindings.record(binding, verified: verified)
    }

    /// The server's host key when `data` is a login request of the session this connection logs in to.
    func server(for data: [UInt8]) -> [UInt8]? {
        guard let last = bindings.destination, !last.forwarding,
            AgentSessionBind(hostKey: last.hostKey, sessionID: last.sessionID, signature: [], forwarding: false)
                .covers(data)
        else { return nil }
        return last.hostKey
    }
}
