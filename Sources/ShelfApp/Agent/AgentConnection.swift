// AgentConnection: what one client connection has told the agent — who is at the other end (SO_PEERCRED), and the
// server its ssh session talks to, from session-bind@openssh.com once the server's signature over the session
// identifier checks out. Used by one thread only (its connection's).
import FoundationEssentials
import ShelfCore
import ShelfVault

final class AgentConnection {
    let peer: PrivateSocket.Peer
    /// `ssh (pid 4242)`, for the logs.
    let who: String
    /// The session this connection is bound to for authentication (not for forwarding).
    private var session: AgentSessionBind?

    init(peer: PrivateSocket.Peer) {
        self.peer = peer
        who = AgentPeerName.describe(peer)
    }

    /// Records a verified binding; false (and nothing recorded) when the server's signature does not check out.
    func bind(_ binding: AgentSessionBind) -> Bool {
        guard HostKeySignature.verify(hostKey: binding.hostKey, signature: binding.signature, data: binding.sessionID)
        else { return false }
        if !binding.forwarding { session = binding }
        return true
    }

    /// The server's host key when `data` is a login request of the bound session.
    func server(for data: [UInt8]) -> [UInt8]? {
        guard let session, session.covers(data) else { return nil }
        return session.hostKey
    }
}
