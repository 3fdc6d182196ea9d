// AgentBindings: the host-bound agent's rules, after OpenSSH's ssh-agent (process_ext_session_bind,
// identity_permitted, process_sign_request2) — the session-binds one agent connection has recorded (one per hop of
// a forwarded agent, the login last), and whether a key bound to some hosts may be listed or sign over it. Pure:
// the caller checks each binding's host-key signature before recording it, and says which host keys are pinned
// for the hosts the key is bound to.

/// One recorded session-bind@openssh.com: the server ssh verified, its session, and whether the connection was
/// forwarded through it (true) or logs in to it (false).
public struct AgentHop: Sendable, Equatable {
    public var hostKey: [UInt8]
    public var sessionID: [UInt8]
    public var forwarding: Bool

    public init(hostKey: [UInt8], sessionID: [UInt8], forwarding: Bool) {
        self.hostKey = hostKey
        self.sessionID = sessionID
        self.forwarding = forwarding
    }
}

/// A host a key is bound to: its pinned host key and the user it logs in as (empty: any user).
public struct AgentBoundHost: Sendable, Equatable {
    public var name: String
    public var user: String
    public var hostKey: [UInt8]

    public init(name: String, user: String, hostKey: [UInt8]) {
        self.name = name
        self.user = user
        self.hostKey = hostKey
    }
}

/// Why a host-bound key was not used. `hostKey` values are named by the caller (the hosts that pin them).
public enum AgentBindingRefusal: Sendable, Equatable {
    /// The client never sent session-bind (OpenSSH before 8.9, or another program): the destination is unknown.
    case unbound
    /// A session-bind on this connection was refused, so what it is bound to cannot be trusted.
    case bindFailed
    case notALogin
    case otherSession
    /// The host key in a host-bound login request is not the one the connection was bound to.
    case hostKeyMismatch
    case signOnForwardingHop
    case forwardedThroughLogin
    /// The agent was forwarded through a server (hop `index`, from 0) none of the key's hosts pins.
    case hopNotBound(index: Int, hostKey: [UInt8])
    /// The server to log in to is none of the key's hosts.
    case destinationNotBound(hostKey: [UInt8])
    /// The server is one of the key's hosts, but not for this user.
    case wrongUser(user: String, allowed: [String])
}

public enum AgentBindOutcome: Sendable, Equatable {
    case recorded
    /// The same session bound again: nothing new.
    case known
    case refused(String)
}

public struct AgentBindings: Sendable, Equatable {
    /// OpenSSH's AGENT_MAX_SESSION_IDS: hops one connection may record.
    public static let maximumHops = 16

    public private(set) var hops: [AgentHop] = []
    /// A session-bind was received on this connection (recorded or not).
    public private(set) var attempted = false

    public init() {}

    /// The last hop: the server a login on this connection is for.
    public var destination: AgentHop? { hops.last }

    /// Records a session-bind whose host-key signature the caller has verified (`verified` false records the
    /// attempt only: the connection's bound keys are refused from then on, as OpenSSH does).
    public mutating func record(_ bind: AgentSessionBind, verified: Bool) -> AgentBindOutcome {
        attempted = true
        guard verified else { return .refused("the server's signature over the session does not verify") }
        for hop in hops {
            guard hop.forwarding else {
                return .refused("the connection is already bound to a login; a second binding is not accepted")
            }
            if hop.sessionID == bind.sessionID {
                return hop.hostKey == bind.hostKey ? .known : .refused("the session is bound to another host key")
            }
        }
        guard hops.count < Self.maximumHops else { return .refused("more than \(Self.maximumHops) hops") }
        hops.append(AgentHop(hostKey: bind.hostKey, sessionID: bind.sessionID, forwarding: bind.forwarding))
        return .recorded
    }

    /// Whether a key bound to `hosts` is listed on this connection: always where the connection is not bound
    /// (local use: `ssh-add -l`), else only when every hop is one of its hosts — ssh offers only keys the server
    /// may see, which also ends "Too many authentication failures".
    /// Nil when listed; otherwise why not.
    public func listRefusal(boundTo hosts: [AgentBoundHost]) -> AgentBindingRefusal? {
        if attempted && hops.isEmpty { return .bindFailed }
        for (index, hop) in hops.enumerated() where !hosts.contains(where: { $0.hostKey == hop.hostKey }) {
            return hop.forwarding
                ? .hopNotBound(index: index, hostKey: hop.hostKey)
                : .destinationNotBound(hostKey: hop.hostKey)
        }
        return nil
    }

    /// Nil when a key bound to `hosts` may sign `data` on this connection; otherwise why not. The data must be a
    /// login of the last bound session; every hop before it must be a forwarding through one of the key's hosts,
    /// and the last one a login to one of them as its user.
    public func refusal(signing data: [UInt8], keyBlob: [UInt8], boundTo hosts: [AgentBoundHost])
        -> AgentBindingRefusal?
    {
        guard let last = hops.last else { return attempted ? .bindFailed : .unbound }
        guard let login = AgentLoginRequest.decode(data), login.keyBlob == keyBlob else { return .notALogin }
        guard login.sessionID == last.sessionID else { return .otherSession }
        if hops.count > 1 && login.hostKey == nil { return .hostKeyMismatch }
        if let hostKey = login.hostKey, hostKey != last.hostKey { return .hostKeyMismatch }
        guard !last.forwarding else { return .signOnForwardingHop }
        for (index, hop) in hops.dropLast().enumerated() {
            guard hop.forwarding else { return .forwardedThroughLogin }
            guard hosts.contains(where: { $0.hostKey == hop.hostKey }) else {
                return .hopNotBound(index: index, hostKey: hop.hostKey)
            }
        }
        let pinning = hosts.filter { $0.hostKey == last.hostKey }
        guard !pinning.isEmpty else { return .destinationNotBound(hostKey: last.hostKey) }
        guard pinning.contains(where: { $0.user.isEmpty || $0.user == login.user }) else {
            return .wrongUser(user: login.user, allowed: pinning.map(\.user))
        }
        return nil
    }
}
