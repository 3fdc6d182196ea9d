// HopTransport: how one hop's bytes reach its sshd — a stream socket the hop's session owns, and whatever must
// keep running to carry it. A direct hop is a TCP connection; a jump hop is a direct-tcpip channel of the hop
// before it, pumped through a socketpair by a JumpBridge. A new kind of hop (a ProxyCommand child on a
// socketpair) is one more transport: the connector's hop routine (handshake, verify, authenticate) is the same.
import FoundationEssentials

/// What keeps a hop's stream alive once opened (a bridge thread, a child process); stopped after the session
/// it carries has disconnected.
protocol HopCarrier: AnyObject {
    func stop()
}

protocol HopTransport {
    /// What the caller may show while this transport opens.
    func event(for hop: SSHEndpoint) -> ConnectEvent
    /// A connected stream socket for the hop's session (which takes ownership) and its carrier, if any.
    func open(_ hop: SSHEndpoint, options: ConnectOptions) throws(SSHError) -> (socket: Int32, carrier: HopCarrier?)
}

/// The first hop: a TCP connection to the host's address (each resolved address tried in turn).
struct DirectTCP: HopTransport {
    func event(for hop: SSHEndpoint) -> ConnectEvent { .connecting(hop: hop.name, address: hop.lookupName) }

    func open(_ hop: SSHEndpoint, options: ConnectOptions) throws(SSHError) -> (socket: Int32, carrier: HopCarrier?) {
        let fd = try TCPConnection.open(
            host: hop.hostname, port: hop.port, name: hop.name,
            timeout: hop.connectTimeout(options),
            cancellation: options.cancellation)
        options.cancellation?.register(fd)
        return (fd, nil)
    }
}

/// A hop behind a jump host: a direct-tcpip channel of the previous (verified and logged-in) session.
struct JumpChannel: HopTransport {
    let outer: Session
    let outerName: String

    func event(for hop: SSHEndpoint) -> ConnectEvent { .jumping(from: outerName, to: hop.name) }

    func open(_ hop: SSHEndpoint, options: ConnectOptions) throws(SSHError) -> (socket: Int32, carrier: HopCarrier?) {
        let channel = try outer.openDirectTCPIP(host: hop.hostname, port: hop.port)
        let bridge = try JumpBridge(outer: outer, channel: channel, keepaliveInterval: options.keepaliveInterval)
        bridge.start()
        return (bridge.innerEnd, bridge)
    }
}

extension JumpBridge: HopCarrier {}
