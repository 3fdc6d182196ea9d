// Connector: the connect flow. One hop routine serves every hop, outermost first: open its transport (TCP, or
// a channel of the hop before it), handshake, verify the host key (which yields the VerifiedSession), and only
// then log in with that VerifiedSession — the only value authentication and credential lookups accept.
import FoundationEssentials
import Glibc
import ShelfCore

public final class SSHConnector {
    public let options: ConnectOptions
    let credentials: CredentialSource
    let delegate: ConnectDelegate
    /// What the last connect attempt verified and stored, kept even when it failed later (a login refused
    /// after the host key was accepted): the caller still pins those keys on their host records.
    public private(set) var lastOutcome = ConnectOutcome()

    public init(options: ConnectOptions, credentials: CredentialSource, delegate: ConnectDelegate) {
        self.options = options
        self.credentials = credentials
        self.delegate = delegate
    }

    /// Connects through `hops` (jump hosts first, the target last) and logs in on each.
    public func connect(_ hops: [SSHEndpoint]) throws(SSHError) -> SSHConnection {
        let connection = SSHConnection()
        defer {
            lastOutcome = connection.outcome
            options.cancellation?.finish()
        }
        do {
            try logIn(hops[...], on: connection)
        } catch {
            // Its sockets close next and their numbers may be reused: a late cancel must not reach them.
            options.cancellation?.finish()
            connection.close()
            // A cancelled attempt fails wherever its socket was shut down; it is reported as what it was.
            if options.cancellation?.isCancelled == true { throw ConnectCancellation.cancelledError() }
            throw error
        }
        connection.finishSetup()
        return connection
    }

    /// Connects through the jump hosts (verified and logged in) and only handshakes with the last hop, returning
    /// the key it offers. For `sshelf trust`: nothing is sent to the last hop beyond the key exchange, and a key the
    /// hop's RevokedHostKeys revokes is refused here, never offered for pinning.
    public func fetchHostKey(_ hops: [SSHEndpoint]) throws(SSHError) -> HostKey {
        guard let target = hops.last else { throw SSHError(.invalidConfiguration, "no host to connect to") }
        let connection = SSHConnection()
        defer {
            lastOutcome = connection.outcome
            options.cancellation?.finish()
            connection.close()
        }
        try logIn(hops.dropLast(), on: connection)
        let session = try handshake(target, on: connection)
        guard let key = session.hostKey() else {
            throw SSHError(.handshakeFailed, "\(target.name) sent no usable host key", library: session.lastError())
        }
        try RevokedHostKeysFile.refuseRevokedPin(key, hop: target)
        return key
    }

    /// The hop routine: for each hop, handshake over its transport, verify, authenticate.
    private func logIn(_ hops: ArraySlice<SSHEndpoint>, on connection: SSHConnection) throws(SSHError) {
        for hop in hops {
            let session = try handshake(hop, on: connection)
            let verified = try HostKeyCheck.verify(
                session, hop: hop, trust: options.trust, files: connection.knownHostsFiles, delegate: delegate,
                outcome: &connection.outcome, certificates: connection.hopCertificates)
            connection.hostKeys.append(verified.hostKey)
            try Authenticator(verified: verified, options: options, credentials: credentials, delegate: delegate)
                .run(outcome: &connection.outcome)
            // Only once logged in: libssh2 sends its first keepalive at the next wait, and one sent before the login
            // is a protocol error to sshd (a "dispatch_protocol_error" line in the server's log for every login).
            session.startKeepalives(interval: hop.settings.serverAliveInterval ?? options.keepaliveInterval)
            connection.names.append(hop.name)
            connection.targetSettings = hop.settings
            connection.targetName = hop.name
        }
    }

    /// The transport a hop arrives over: the first hop connects directly, or through its ProxyCommand; each later
    /// one through the hop before it (a jump chain wins over a later hop's ProxyCommand, as ProxyJump does in ssh).
    private func transport(for hop: SSHEndpoint, on connection: SSHConnection) -> HopTransport {
        guard let outer = connection.sessions.last, let outerName = connection.names.last else {
            if let command = hop.settings.proxyCommand { return ProxyCommandTransport(command: command) }
            return DirectTCP()
        }
        return JumpChannel(outer: outer, outerName: outerName)
    }

    /// A hop behind a jump host or a ProxyCommand that a CA may vouch for: its certificates read along the same path
    /// before the login's own handshake (a channel of the jump session is opened, read and closed while nothing
    /// else uses that session; the command runs once more), not from its address, which may reach nothing or
    /// another machine. Empty when it presents none or cannot be read: its key is then unknown, as without the CA.
    private func probeCertificates(_ hop: SSHEndpoint, over transport: HopTransport) -> [[UInt8]] {
        guard let (socket, carrier) = try? transport.open(hop, options: options) else { return [] }
        let found = HostCertificateProbe.certificates(over: socket, timeout: hop.connectTimeout(options))
        close(socket)
        carrier?.stop()
        // The bridge left the jump session non-blocking; the login's own channel is opened on it in blocking mode.
        if let jump = transport as? JumpChannel { jump.outer.setBlocking(true) }
        return found
    }

    private func handshake(_ hop: SSHEndpoint, on connection: SSHConnection) throws(SSHError) -> Session {
        if options.cancellation?.isCancelled == true { throw ConnectCancellation.cancelledError() }
        let transport = transport(for: hop, on: connection)
        delegate.note(transport.event(for: hop))
        connection.hopCertificates = nil
        if !(transport is DirectTCP), hop.pinnedHostKey == nil,
            options.trust.certificateAuthorityCovers(
                host: hop.hostname, port: hop.port, load: connection.knownHostsFiles.entries)
        {
            connection.hopCertificates = probeCertificates(hop, over: transport)
        }
        let (socket, carrier) = try transport.open(hop, options: options)
        connection.carriers.append(carrier)
        let session = try Session(socket: socket)
        connection.sessions.append(session)
        session.setTimeout(seconds: hop.connectTimeout(options))
        try session.preferAlgorithms(
            knownHostKeyTypes: options.trust.knownTypes(
                host: hop.hostname, port: hop.port, pinned: hop.pinnedHostKey,
                load: connection.knownHostsFiles.entries),
            settings: hop.settings)
        do {
            try session.handshake(target: hop.name)
        } catch {
            // A ProxyCommand that failed says why on its stderr: that is the message, not libssh2's.
            var failure = (carrier as? ProxyCommandChild)?.failure(handshake: error) ?? error
            // Behind a jump host: what the server offered passed through the bridge in the clear (KexProbe reads
            // the first hop's itself); one that offers only post-quantum key exchange is named so.
            if failure.kind == .handshakeFailed, let bridge = carrier as? JumpBridge,
                let offered = KexProbe.parse(bridge.serverFirstBytes)
            {
                failure.postQuantumOnly = PostQuantumOffer.only(offered, hop: hop.name)
            }
            throw failure
        }
        connection.outcome.keyExchanges.append(session.keyExchange ?? "")
        return session
    }
}
