// HostCertificateTrust: host certificates for sshelf's own client. libssh2 neither negotiates the certificate host
// key algorithms nor checks a certificate, so for a host a `@cert-authority` line covers (and no pin or known key
// decides), the host's certificates are fetched on a connection of their own, each checked here in full (signed by
// a CA trusted for this name, a host certificate for the name connected to, valid now, no unknown critical option,
// neither the CA nor the key `@revoked`), and the one that certifies the very key this session's handshake proved
// vouches for it. A checked certificate is kept in memory until it expires.
import FoundationEssentials
import ShelfCore
import ShelfSystem

/// What the host-key check needs to use host certificates: the CA signature check (libsodium and libcrypto live
/// in the vault's target), a way to fetch a host's certificates, and the clock.
public struct HostCertificateCheck: Sendable {
    /// Whether `signature` (`string algorithm, string signature`) is the CA key `caKey`'s over `data`.
    public typealias Verify = @Sendable (_ caKey: [UInt8], _ signature: [UInt8], _ data: [UInt8]) -> Bool
    /// The certificate blobs `host`:`port` presents (none when it presents none or cannot be reached).
    public typealias Fetch = @Sendable (_ host: String, _ port: Int, _ timeout: Double) -> [[UInt8]]

    public var verify: Verify
    public var fetch: Fetch
    /// Seconds since the epoch.
    public var now: @Sendable () -> UInt64
    public var timeout: Double

    public init(
        verify: @escaping Verify, fetch: @escaping Fetch = HostCertificateScan.fetch,
        now: @escaping @Sendable () -> UInt64 = { UInt64(max(0, Date().timeIntervalSince1970)) }, timeout: Double = 10
    ) {
        self.verify = verify
        self.fetch = fetch
        self.now = now
        self.timeout = timeout
    }
}

/// What host certificates say about a key.
enum HostCertificateVerdict: Sendable {
    /// No `@cert-authority` line covers this host, or it presented no certificate from one for this key.
    case none
    case trusted(String)
    /// A certificate from a trusted CA certifies this key but cannot vouch for it: why.
    case invalid(String)
    /// The CA that signed it, or the certificate's key, is `@revoked`.
    case revoked(String)
}

extension HostKeyTrustStore {
    /// The files that can hold `@cert-authority` and `@revoked` lines, each with where it comes from.
    private func certificateFiles(_ load: (String) -> [KnownHostEntry]?) -> [(HostKeySource, [KnownHostEntry])] {
        var files: [(HostKeySource, [KnownHostEntry])] = [(.sshelfKnownHosts, load(ownKnownHostsPath) ?? [])]
        if let caPins { files.append((.caPins, caPins())) }
        if let userKnownHostsPath { files.append((.userKnownHosts, load(userKnownHostsPath) ?? [])) }
        return files
    }

    /// Whether a CA is trusted for `host`:`port` (so a certificate could vouch for its key) and certificates are
    /// checked at all.
    func certificateAuthorityCovers(host: String, port: Int, load: (String) -> [KnownHostEntry]?) -> Bool {
        guard certificates != nil else { return false }
        let name = KnownHostsFile.lookupName(host: host, port: port)
        return certificateFiles(load).contains { _, entries in
            entries.contains { $0.marker == .certAuthority && $0.matches(name) }
        }
    }

    /// `fetched`: the certificates read along the login's own path (HostCertificateProbe, for a hop behind a jump
    /// host or a ProxyCommand); nil to fetch them straight from the address (`HostCertificateCheck.fetch`).
    func certificateVerdict(
        _ key: HostKey, host: String, port: Int, load: (String) -> [KnownHostEntry]?,
        revocations: HostKeyRevocations? = nil, fetched: [[UInt8]]? = nil
    ) -> HostCertificateVerdict {
        guard let check = certificates else { return .none }
        let name = KnownHostsFile.lookupName(host: host, port: port)
        let files = certificateFiles(load)
        let authorities = files.flatMap { source, entries in
            entries.filter { $0.marker == .certAuthority && $0.matches(name) }.map { (source, $0.key) }
        }
        guard !authorities.isEmpty else { return .none }
        let revoked = files.flatMap { _, entries in entries.filter { $0.marker == .revoked }.map(\.key.blob) }
        let cacheKey = name + " " + key.base64
        let now = check.now()
        let blobs =
            HostCertificateCache.shared.certificates(for: cacheKey, now: now)
            ?? fetched ?? check.fetch(host, port, check.timeout)
        var problem: HostCertificateVerdict = .none
        for blob in blobs {
            guard let certificate = SSHCertificate(blob: blob), certificate.publicKeyBlob == key.blob else { continue }
            guard let (source, authority) = authorities.first(where: { $0.1.blob == certificate.signatureKey })
            else { continue }
            let described = "the host certificate of \(host) (serial \(certificate.serial))"
            if revoked.contains(authority.blob) {
                return .revoked("the CA \(authority.fingerprint) that signed \(described) is @revoked")
            }
            if revoked.contains(key.blob) { return .revoked("the key of \(described) is @revoked") }
            if revocations?.revokes(certificate: certificate) == true {
                return .revoked("\(described) (or its CA \(authority.fingerprint)) is revoked in RevokedHostKeys")
            }
            guard check.verify(certificate.signatureKey, certificate.signature, certificate.signedBytes) else {
                problem = .invalid("\(described) does not carry a valid signature of the CA \(authority.fingerprint)")
                continue
            }
            if let why = certificate.hostProblem(name: host, now: now) {
                problem = .invalid("\(described) cannot vouch for it: \(why)")
                continue
            }
            HostCertificateCache.shared.keep(blob, for: cacheKey, until: certificate.validBefore)
            return .trusted(
                "a host certificate (serial \(certificate.serial), principal \(host), valid until "
                    + "\(SSHCertificate.timestamp(certificate.validBefore))) signed by the CA \(authority.fingerprint) "
                    + (source == .caPins
                        ? "pinned in \(source.rawValue)" : "of a @cert-authority line in \(source.rawValue)"))
        }
        return problem
    }
}

extension HostKeyTrustStore {
    /// Adds `@cert-authority PATTERNS KEY` to sshelf's known_hosts (once), under the file's lock. `patterns` are
    /// known_hosts host patterns, comma-separated: the CA vouches for those names only.
    public func rememberAuthority(_ key: HostKey, patterns: String) throws(SSHError) {
        let parts = patterns.split(separator: ",", omittingEmptySubsequences: false)
        guard !parts.isEmpty,
            parts.allSatisfy({ part in
                !part.isEmpty && part != "!" && part.allSatisfy { $0 > " " && $0 <= "~" && $0 != "#" && $0 != "|" }
            })
        else {
            throw SSHError(
                .invalidConfiguration, "--hosts: '\(patterns)' is not a list of host patterns",
                hint: "host names or wildcards, comma-separated, e.g. '*.example.org,10.0.0.*'")
        }
        try editOwnKnownHosts { file in
            let entry = KnownHostEntry(marker: .certAuthority, hosts: patterns, key: key, comment: "")
            if !file.entries.contains(where: { $0.marker == .certAuthority && $0.hosts == patterns && $0.key == key }) {
                file.lines.append(.entry(entry))
            }
        }
    }
}

extension HostKeyTrustStore {
    /// Removes the `@cert-authority` lines of `key` from sshelf's known_hosts (only those for `patterns` when
    /// given); how many went.
    public func forgetAuthority(_ key: HostKey, patterns: String?) throws(SSHError) -> Int {
        let named = { (entry: KnownHostEntry) in
            entry.marker == .certAuthority && entry.key == key && (patterns == nil || entry.hosts == patterns)
        }
        // Nothing to remove: the file is left as it is (or absent).
        guard try KnownHostsFile.load(ownKnownHostsPath).entries.contains(where: named) else { return 0 }
        var removed = 0
        try editOwnKnownHosts { file in
            file.lines.removeAll { line in
                guard case .entry(let entry) = line, named(entry) else { return false }
                removed += 1
                return true
            }
        }
        return removed
    }
}

/// Certificates that passed the check, by host name and key, until they expire: a kept session's recheck before
/// each command, and the next login to the host, do not fetch them again.
final class HostCertificateCache: @unchecked Sendable {
    static let shared = HostCertificateCache()
    private let lock = Lock()
    private var kept: [String: (blob: [UInt8], until: UInt64)] = [:]

    func certificates(for key: String, now: UInt64) -> [[UInt8]]? {
        lock.withLock {
            guard let entry = kept[key] else { return nil }
            if now >= entry.until {
                kept[key] = nil
                return nil
            }
            return [entry.blob]
        }
    }

    func keep(_ blob: [UInt8], for key: String, until: UInt64) {
        lock.withLock { kept[key] = (blob, until) }
    }
}

/// Fetches a host's certificates with OpenSSH's `ssh-keyscan -c` (a connection of its own: what it returns is
/// checked here, and the login's handshake proves the key). Reaches the host directly: for a host behind a jump host
/// or a ProxyCommand the connector reads them along the login's path instead (HostCertificateProbe).
public enum HostCertificateScan {
    static let keyscanPath = "/usr/bin/ssh-keyscan"

    @Sendable public static func fetch(host: String, port: Int, timeout: Double) -> [[UInt8]] {
        let seconds = String(max(1, Int(timeout.rounded(.up))))
        guard
            let output = ChildProcess.run(
                [keyscanPath, "-c", "-T", seconds, "-p", String(port), "--", host], limit: 256 * 1024,
                timeout: timeout + 5),
            !output.timedOut
        else { return [] }
        return parse(String(decoding: output.stdout, as: UTF8.self))
    }

    /// The certificate blobs of its `type base64` lines (ssh-keyscan -c prints no host name before a certificate;
    /// a `host type base64` line is taken too).
    static func parse(_ text: String) -> [[UInt8]] {
        text.split(separator: "\n").compactMap { line in
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let at = fields.prefix(2).firstIndex(where: { $0.hasSuffix(SSHCertificate.suffix) }),
                at + 1 < fields.count, let data = Data(base64Encoded: String(fields[at + 1]))
            else { return nil }
            return [UInt8](data)
        }
    }
}
