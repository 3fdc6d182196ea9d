// HostKeyCheck: the verification step of every hop, right after the handshake. It alone can make a
// VerifiedSession, and authentication and every credential lookup take one: reading or sending a credential
// for a hop whose host key was not checked does not compile. Changed and revoked keys end the connection;
// unknown and other-type keys go to the caller's policy.
import FoundationEssentials
import ShelfCore

/// A hop whose host key was verified: trusted by its pin or a known_hosts file, or accepted by the user. Only
/// `HostKeyCheck.verify` makes one (the initialiser is private to this file); the authenticator, every
/// `CredentialSource` lookup and every credential prompt take one.
public struct VerifiedSession {
    let session: Session
    public let hop: SSHEndpoint
    /// The key the server proved it holds, and what vouched for it.
    public let hostKey: HostKey
    public let trustedBy: String

    fileprivate init(session: Session, hop: SSHEndpoint, hostKey: HostKey, trustedBy: String) {
        self.session = session
        self.hop = hop
        self.hostKey = hostKey
        self.trustedBy = trustedBy
    }
}

enum HostKeyCheck {
    /// Verifies the key `session` received from `hop`. Every verified hop with a host record is pinned
    /// (`outcome.pinnedKeys`) when its record holds no pin yet, whichever source vouched for the key, so other
    /// devices can check it too; a key the user accepts for this connection only is not pinned.
    /// `files`: the login's known_hosts cache, which ordered the host key algorithms a moment before from the same
    /// files (read once, not twice, when they did not change meanwhile). `certificates`: the hop's host certificates
    /// as read along its own path (behind a jump host or a ProxyCommand); nil to fetch them from its address.
    static func verify(
        _ session: Session, hop: SSHEndpoint, trust: HostKeyTrustStore, files: KnownHostsCache,
        delegate: ConnectDelegate, outcome: inout ConnectOutcome, certificates: [[UInt8]]? = nil
    ) throws(SSHError) -> VerifiedSession {
        guard let key = session.hostKey() else {
            throw SSHError(.handshakeFailed, "\(hop.name) sent no usable host key", library: session.lastError())
        }
        let revocations = try RevokedHostKeysFile.load(hop)
        if revocations?.revokes(key: key.blob) == true { throw RevokedHostKeysFile.revoked(hop: hop, key: key) }
        let verdict = trust.evaluate(
            key, host: hop.hostname, port: hop.port, pinned: hop.pinnedHostKey, load: files.entries)
        let trustedBy: String
        var pin = false
        switch verdict {
        case .trusted(let source):
            trustedBy = source.rawValue
            pin = source != .pinned && hop.pinnedHostKey == nil
        case .changed(let known, let source):
            throw changed(hop: hop, offered: key, known: known, source: source)
        case .revoked(let source):
            throw revoked(hop: hop, key: key, source: source)
        case .unknown, .otherType:
            // A key no pin or known_hosts line knows may be vouched for by a CA. Not pinned: the CA, not this
            // key, is what the user trusts, and the host may rotate its key under a new certificate.
            switch trust.certificateVerdict(
                key, host: hop.hostname, port: hop.port, load: files.entries, revocations: revocations,
                fetched: certificates)
            {
            case .trusted(let certificate):
                if let id = hop.hostID { outcome.hostCertificates.append((id, certificate)) }
                delegate.note(.hostKeyVerified(hop: hop.name, fingerprint: key.fingerprint, source: certificate))
                return VerifiedSession(session: session, hop: hop, hostKey: key, trustedBy: certificate)
            case .invalid(let why):
                throw invalidCertificate(hop: hop, why: why)
            case .revoked(let why):
                throw revokedCertificate(hop: hop, why: why)
            case .none:
                break
            }
            var reason = HostKeyQuestion.Reason.unknown
            if case .otherType(let types, let source) = verdict {
                reason = .otherType(knownTypes: types, source: source)
            }
            let question = HostKeyQuestion(hopName: hop.name, lookupName: hop.lookupName, key: key, reason: reason)
            switch policyDecision(hop.settings.hostKeyPolicy, reason: reason) ?? delegate.decide(question) {
            case .refuse:
                throw refused(question)
            case .acceptOnce:
                break
            case .acceptAndRemember:
                try trust.remember(key, host: hop.hostname, port: hop.port, replacing: false)
                pin = true
            }
            trustedBy = "accepted by the user"
        }
        if pin, let id = hop.hostID { outcome.pinnedKeys.append((id, key.pinned)) }
        delegate.note(.hostKeyVerified(hop: hop.name, fingerprint: key.fingerprint, source: trustedBy))
        return VerifiedSession(session: session, hop: hop, hostKey: key, trustedBy: trustedBy)
    }

    /// A session kept open (a warm keeper) checks the key its hop proved at login again, against the pins and
    /// known_hosts files as they are now, before each command: a key revoked, changed or no longer known since is
    /// refused as a new login would refuse it (nothing is asked here: the caller's own login asks, if it may).
    static func recheck(_ key: HostKey, hop: SSHEndpoint, trust: HostKeyTrustStore, files: KnownHostsCache)
        throws(SSHError)
    {
        let revocations = try RevokedHostKeysFile.load(hop)
        if revocations?.revokes(key: key.blob) == true { throw RevokedHostKeysFile.revoked(hop: hop, key: key) }
        let verdict = trust.evaluate(
            key, host: hop.hostname, port: hop.port, pinned: hop.pinnedHostKey, load: files.entries)
        switch verdict {
        case .trusted:
            return
        case .changed(let known, let source):
            throw changed(hop: hop, offered: key, known: known, source: source)
        case .revoked(let source):
            throw revoked(hop: hop, key: key, source: source)
        case .unknown, .otherType:
            switch trust.certificateVerdict(
                key, host: hop.hostname, port: hop.port, load: files.entries, revocations: revocations)
            {
            case .trusted: return
            case .invalid(let why): throw invalidCertificate(hop: hop, why: why)
            case .revoked(let why): throw revokedCertificate(hop: hop, why: why)
            case .none: break
            }
        }
        if case .otherType(let types, let source) = verdict {
            throw refused(
                HostKeyQuestion(
                    hopName: hop.name, lookupName: hop.lookupName, key: key,
                    reason: .otherType(knownTypes: types, source: source)))
        }
        throw refused(HostKeyQuestion(hopName: hop.name, lookupName: hop.lookupName, key: key, reason: .unknown))
    }

    /// A certificate from a CA trusted for this host certifies the key it proved, and fails the check: refused
    /// outright (no question: the user trusts the CA, and the CA does not vouch for this).
    static func invalidCertificate(hop: SSHEndpoint, why: String) -> SSHError {
        SSHError(
            .hostKeyUnknown, "\(why); not connecting to \(hop.name), nothing was sent",
            hint: "ask the server's administrator for a valid host certificate, or confirm the key out of band and "
                + "pin it: sshelf trust \(ShellWord.quote(hop.name))")
    }

    static func revokedCertificate(hop: SSHEndpoint, why: String) -> SSHError {
        SSHError(
            .hostKeyRevoked, "\(why); not connecting to \(hop.name), nothing was sent",
            hint: "the CA or key was revoked on purpose: contact the server's administrator")
    }

    static func revoked(hop: SSHEndpoint, key: HostKey, source: HostKeySource) -> SSHError {
        SSHError(
            .hostKeyRevoked,
            "the host key of \(hop.name) (\(key.type) \(key.fingerprint)) is marked @revoked in "
                + "\(source.rawValue); nothing was sent",
            hint: "the key was revoked on purpose: contact the server's administrator")
    }

    /// What the host's StrictHostKeyChecking decides without asking: `yes` refuses a key it does not know,
    /// `accept-new` (and `no`, taken no further) accepts and pins an unknown key. A key known under other types
    /// still needs the user, and a changed key never gets here: it is a hard failure whatever the option says.
    static func policyDecision(_ policy: HostSettings.HostKeyPolicy, reason: HostKeyQuestion.Reason) -> HostKeyDecision?
    {
        switch (policy, reason) {
        case (.strict, _): .refuse
        case (.acceptNew, .unknown): .acceptAndRemember
        case (.acceptNew, .otherType), (.ask, _): nil
        }
    }

    static func changed(hop: SSHEndpoint, offered: HostKey, known: [HostKey], source: HostKeySource) -> SSHError {
        let old =
            known.isEmpty
            ? "an undecodable pinned key" : known.map { "\($0.type) \($0.fingerprint)" }.joined(separator: ", ")
        var error = SSHError(
            .hostKeyChanged,
            """
            WARNING: the host key of \(hop.name) (\(hop.lookupName)) has CHANGED. Someone may be intercepting \
            the connection (man-in-the-middle), or the server was reinstalled. Known in \(source.rawValue): \(old); \
            offered now: \(offered.type) \(offered.fingerprint). Nothing was sent and no credential was read.
            """,
            hint: "if the change is expected, confirm the new fingerprint out of band, then: sshelf trust \(hop.name) "
                + "--replace --fingerprint \(offered.fingerprint)")
        error.hostKeyChange = HostKeyChange(
            hopName: hop.name, lookupName: hop.lookupName, hostname: hop.hostname,
            port: hop.port, hostID: hop.hostID, offered: offered, known: known,
            source: source)
        return error
    }

    static func refused(_ question: HostKeyQuestion) -> SSHError {
        switch question.reason {
        case .unknown:
            return SSHError(
                .hostKeyUnknown,
                "the host key of \(question.hopName) (\(question.lookupName)) is not known: \(question.key.type) "
                    + "\(question.fingerprint); not connecting",
                hint: "check the fingerprint, then re-run with --accept-new or run: sshelf trust \(question.hopName) "
                    + "--fingerprint \(question.fingerprint)")
        case .otherType(let types, let source):
            return SSHError(
                .hostKeyOtherType,
                "\(question.hopName) offered \(KeyTypeArticle.with(question.key.type)) key (\(question.fingerprint)) "
                    + "but \(source.rawValue) knows it only as \(types.joined(separator: ", ")); not connecting",
                hint: "if the server gained a new key type, confirm the fingerprint and run: sshelf trust "
                    + "\(question.hopName) --replace --fingerprint \(question.fingerprint)")
        }
    }
}
