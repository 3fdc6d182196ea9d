// Connector: the connect flow. For each hop, outermost first: open the transport (TCP, or a direct-tcpip channel
// of the previous hop), handshake, verify the host key, and only then resolve credentials and log in.
import Foundation
import ShelfCore

public final class SSHConnector {
    public let options: ConnectOptions
    let credentials: CredentialSource
    let delegate: ConnectDelegate

    public init(options: ConnectOptions, credentials: CredentialSource, delegate: ConnectDelegate) {
        self.options = options
        self.credentials = credentials
        self.delegate = delegate
    }

    /// Connects through `hops` (jump hosts first, the target last) and logs in on each.
    public func connect(_ hops: [SSHEndpoint]) throws(SSHError) -> SSHConnection {
        let connection = SSHConnection()
        do {
            for (index, hop) in hops.enumerated() {
                let session = try open(hop, after: connection, previous: index > 0 ? hops[index - 1] : nil)
                _ = try HostKeyCheck.verify(session, hop: hop, trust: options.trust, delegate: delegate,
                                            outcome: &connection.outcome)
                try Authenticator(session: session, hop: hop, options: options, credentials: credentials,
                                  delegate: delegate).run(outcome: &connection.outcome)
            }
        } catch {
            connection.close()
            throw error
        }
        connection.finishSetup()
        return connection
    }

    /// Connects through the jump hosts (verified and logged in) and only handshakes with the last hop, returning
    /// the key it offers. For `sshelf trust`: nothing is sent to the last hop beyond the key exchange.
    public func fetchHostKey(_ hops: [SSHEndpoint]) throws(SSHError) -> HostKey {
        guard let target = hops.last else { throw SSHError(.invalidConfiguration, "no host to connect to") }
        let connection = SSHConnection()
        defer { connection.close() }
        for (index, hop) in hops.dropLast().enumerated() {
            let session = try open(hop, after: connection, previous: index > 0 ? hops[index - 1] : nil)
            _ = try HostKeyCheck.verify(session, hop: hop, trust: options.trust, delegate: delegate,
                                        outcome: &connection.outcome)
            try Authenticator(session: session, hop: hop, options: options, credentials: credentials,
                              delegate: delegate).run(outcome: &connection.outcome)
        }
        let session = try open(target, after: connection, previous: hops.count > 1 ? hops[hops.count - 2] : nil)
        guard let key = session.hostKey() else {
            throw SSHError(.handshakeFailed, "\(target.name) sent no usable host key", library: session.lastError())
        }
        return key
    }

    private func open(_ hop: SSHEndpoint, after connection: SSHConnection, previous: SSHEndpoint?) throws(SSHError) -> Session {
        let session: Session
        if let outer = connection.sessions.last, let previous {
            delegate.note(.jumping(from: previous.name, to: hop.name))
            let channel = try outer.openDirectTCPIP(host: hop.hostname, port: hop.port)
            let bridge = try JumpBridge(outer: outer, channel: channel, keepaliveInterval: options.keepaliveInterval)
            bridge.start()
            connection.bridges.append(bridge)
            session = try Session(socket: bridge.innerEnd)
        } else {
            delegate.note(.connecting(hop: hop.name, address: hop.lookupName))
            let socket = try TCPConnection.open(host: hop.hostname, port: hop.port, timeout: options.connectTimeout)
            session = try Session(socket: socket)
        }
        connection.sessions.append(session)
        session.setTimeout(seconds: options.connectTimeout)
        session.preferAlgorithms(knownHostKeyTypes: options.trust.knownTypes(
            host: hop.hostname, port: hop.port, pinned: hop.pinnedHostKey))
        try session.handshake(target: hop.name)
        return session
    }
}
