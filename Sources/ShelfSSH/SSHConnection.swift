// SSHConnection: a logged-in connection (with its jump sessions and what carries them). Runs commands and
// shells on the innermost session and closes everything innermost first.
import CLibSSH2
import FoundationEssentials
import ShelfCore

public final class SSHConnection {
    /// One per hop, outermost first.
    var sessions: [Session] = []
    /// `carriers[i]` carries `sessions[i]` (nil for a direct TCP hop); one longer than `sessions` when a
    /// transport opened but its session never came up.
    var carriers: [HopCarrier?] = []
    /// The names of the hops logged in so far (for progress events of the next hop).
    var names: [String] = []
    /// What the target's kept options ask of the session (keepalives, environment, a terminal).
    public internal(set) var targetSettings = HostSettings()
    /// The target's name, for messages.
    var targetName = ""
    private var closed = false
    /// A held connection's reader of what the server sends while no command runs (SSHConnectionWatch).
    var watchReader: Channel?
    /// When the watch may next probe a silent server (SSHConnectionWatch).
    var nextProbe = ContinuousClock.now
    /// How another thread stops the command `exec` runs (SSHConnectionAbort).
    let commandStop = CommandStop()
    /// Keys to pin and passwords remembered while connecting; the caller saves them on the host records.
    public internal(set) var outcome = ConnectOutcome()
    /// The host key each hop proved and that was verified, outermost first (`recheckHostKeys`).
    var hostKeys: [HostKey] = []
    /// The host certificates of the hop being logged in to, read along its path (nil: none read that way).
    var hopCertificates: [[UInt8]]?
    /// The known_hosts files `recheckHostKeys` reads, parsed again only when they change.
    let knownHostsFiles = KnownHostsCache()

    init() {}

    deinit { close() }

    var target: Session {
        // connect() only returns a connection once every hop has a session.
        sessions[sessions.count - 1]
    }

    func finishSetup() {
        target.setTimeout(seconds: 0)
    }

    public var isClosed: Bool { closed }

    /// For a connection kept between commands: sends a keepalive on the target session if one is due and returns the
    /// seconds until the next (a warm keeper also watches for answers: SSHConnectionWatch). Jump sessions keep
    /// themselves alive on their bridge threads.
    @discardableResult
    public func keepAlive() -> Int {
        guard !closed, !sessions.isEmpty else { return 0 }
        return target.keepaliveTick()
    }

    /// Checks the host key every hop proved at login again, with `hops` as they are now (pins read afresh, the
    /// known_hosts files read again): throws the refusal a new login would meet when a key was revoked, changed or
    /// is no longer known. For a connection kept between commands (a warm keeper), before each command it runs.
    public func recheckHostKeys(_ hops: [SSHEndpoint], trust: HostKeyTrustStore) throws(SSHError) {
        guard hops.count == hostKeys.count else {
            throw SSHError(.invalidConfiguration, "the hops of \(targetName) changed since this session logged in")
        }
        for (hop, key) in zip(hops, hostKeys) {
            try HostKeyCheck.recheck(key, hop: hop, trust: trust, files: knownHostsFiles)
        }
    }

    /// Disconnects every hop, innermost first, stopping each hop's carrier after its session; safe to call twice.
    public func close() {
        guard !closed else { return }
        closed = true
        watchReader = nil  // freed before its session is
        for index in carriers.indices.reversed() {
            if index < sessions.count { sessions[index].disconnect() }
            carriers[index]?.stop()
        }
        carriers.removeAll()
        sessions.removeAll()
    }
}
