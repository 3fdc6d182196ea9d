// Endpoint: one hop of a connection as the flow needs it — where, who, how to log in, and which references
// name its secrets (never the secrets). A connection is a list of endpoints, outermost jump host first.
import FoundationEssentials
import Glibc
import ShelfCore

public struct SSHEndpoint: Sendable {
    /// The name the user knows the host by (for messages and prompts).
    public var name: String
    public var hostID: UUID?
    public var hostname: String
    public var port: Int
    public var user: String
    public var authMethod: AuthMethod
    public var identity: Identity?
    public var passwordRef: ReferenceKey?
    public var pinnedHostKey: PinnedHostKey?
    /// What the host's kept ssh_config options (its own, then its defaults) ask of sshelf's client.
    public var settings: HostSettings

    public init(
        name: String, hostID: UUID? = nil, hostname: String, port: Int = 22, user: String = "",
        authMethod: AuthMethod = .auto, identity: Identity? = nil, passwordRef: ReferenceKey? = nil,
        pinnedHostKey: PinnedHostKey? = nil, settings: HostSettings = HostSettings()
    ) {
        self.name = name
        self.hostID = hostID
        self.hostname = hostname
        self.port = port
        self.user = user.isEmpty ? SSHEndpoint.localUser : user
        self.authMethod = authMethod
        self.identity = identity
        self.passwordRef = passwordRef
        self.pinnedHostKey = pinnedHostKey
        self.settings = settings
    }

    public init(host: ShelfCore.Host, identity: Identity?, defaults: [OptionDefaults] = []) {
        self.init(
            name: host.name, hostID: host.id, hostname: host.hostname.isEmpty ? host.name : host.hostname,
            port: host.port, user: host.user, authMethod: host.authMethod, identity: identity,
            passwordRef: host.passwordRef, pinnedHostKey: host.pinnedHostKey,
            settings: HostSettings.read(HostSettings.options(for: host, defaults: defaults)))
    }

    /// The connect timeout for this hop: the command line's when given, else the host's ConnectTimeout, else the
    /// default.
    func connectTimeout(_ options: ConnectOptions) -> Double {
        options.connectTimeoutGiven ? options.connectTimeout : settings.connectTimeout ?? options.connectTimeout
    }

    /// `host` or `[host]:port`, the known_hosts spelling.
    public var lookupName: String { KnownHostsFile.lookupName(host: hostname, port: port) }
    public var destination: String { "\(user)@\(lookupName)" }

    /// OpenSSH logs in as the local user when none is configured.
    static var localUser: String {
        if let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name { return String(cString: name) }
        return ProcessInfo.processInfo.environment["USER"] ?? "root"
    }
}

public struct ConnectOptions: Sendable {
    public var trust: HostKeyTrustStore
    /// Per address tried, and for each blocking protocol step.
    public var connectTimeout: Double
    /// ssh-agent socket (SSH_AUTH_SOCK); nil: no agent.
    public var agentSocket: String?
    /// How often a typed password may be retried after the server rejects it.
    public var passwordAttempts: Int
    /// Seconds between keepalives while a session is idle.
    public var keepaliveInterval: Int
    /// The connect timeout was given on the command line (it then wins over a host's ConnectTimeout).
    public var connectTimeoutGiven: Bool
    /// The environment `SendEnv` patterns pick variables from, and `IdentityAgent $NAME` reads.
    public var environment: [String: String]
    /// Lets another thread stop the attempt at any stage (the TUI's Esc); nil: it cannot be stopped.
    public var cancellation: ConnectCancellation?
    /// Signs with a private key file (OpenSSH or PEM, its passphrase) for a user certificate login, which
    /// libssh2's own key loading cannot do (it looks the private key up under the certificate's type); nil: the
    /// host's CertificateFiles are not offered (nor on libssh2 1.10: LibSSH2.Features.userCertificates).
    public var certificateSigner: CertificateSigner?
    /// Sends the plan's first key at once instead of asking the server for its methods first (the "none" request):
    /// one round trip less per login. Only where nobody is shown the server's banner (a fleet run): libssh2 hands the
    /// banner over only with the methods.
    public var keyBeforeMethods = false

    public init(
        trust: HostKeyTrustStore, connectTimeout: Double = 10, agentSocket: String? = nil,
        passwordAttempts: Int = 3, keepaliveInterval: Int = 30, connectTimeoutGiven: Bool = false,
        environment: [String: String] = [:]
    ) {
        self.trust = trust
        self.connectTimeoutGiven = connectTimeoutGiven
        self.environment = environment
        self.connectTimeout = connectTimeout
        self.agentSocket = agentSocket
        self.passwordAttempts = passwordAttempts
        self.keepaliveInterval = keepaliveInterval
    }
}

/// What a successful connection changed, for the caller to save on the host records.
public struct ConnectOutcome: Sendable {
    /// Keys the user accepted with "remember": pin them on these hosts.
    public var pinnedKeys: [(hostID: UUID, key: PinnedHostKey)] = []
    /// Passwords stored on "remember": set these references on the hosts.
    public var rememberedPasswords: [(hostID: UUID, reference: ReferenceKey)] = []
    /// Key-file passphrases the user asked to remember, now in the vault: the identity's `passphraseRef`.
    public var rememberedKeyPassphrases: [(identityID: UUID, reference: ReferenceKey)] = []
    /// The method that logged in on each hop, outermost first.
    public var methods: [String] = []
    /// The key exchange each hop's session used, outermost first (the target's last).
    public var keyExchanges: [String] = []
    /// The hops whose key a host certificate vouched for, and what it said (CA, serial, principal, end).
    public var hostCertificates: [(hostID: UUID, trustedBy: String)] = []

    /// Nothing new: what a command run on an existing (warm) session records.
    public init() {}
}
