// VaultRelease: the one way a secret leaves the vault, and the one writer of the release log. `release` reads an
// item and writes its line (what, by which part of sshelf, for which host and its verified key) before it hands
// the secret back; a line that cannot be written withholds the secret (`notLogged`, the bytes dropped unread by
// anyone): a release that cannot be logged does not happen. `release(_:logging:)` does the same for what leaves
// without being a stored item's bytes (an agent's signature), and `record` writes what releases nothing (a refused
// signature, a fleet run). ArchitectureTests.ReleaseLogWriterTests holds that no other file appends to the log.
import ShelfCore

/// Why a stored secret is handed out: which part of sshelf sends it, to which host, whose key was verified first.
public struct ReleasePurpose: Sendable, Equatable {
    /// connect, exec (a warm keeper's login too), forward, trust, tui, files, copy-id, run or cp (ReleaseEntry.by).
    public var by: String
    /// The hop the secret is sent to.
    public var host: String
    /// The fingerprint of that hop's host key, verified before anything was read (credentials go only to a host
    /// whose key was checked).
    public var hostKey: String

    public init(by: String, host: String, hostKey: String) {
        self.by = by
        self.host = host
        self.hostKey = hostKey
    }
}

/// The answer to a release.
public enum ReleaseAnswer: Sendable {
    /// Read, and its line is in the log.
    case released(SecretBytes)
    /// Read, but its line could not be written, so it was withheld.
    case notLogged(ReleaseLogError)
    /// Not read: the vault's own answer (notStored, locked, storedInOtherClass, vaultUnavailable; never found).
    case unread(CredentialLookup)
}

extension Vault {
    /// Reads `reference` from `accessibility` and logs its release for `purpose`; the secret only once the line is
    /// written.
    public func release(
        _ reference: ReferenceKey, class accessibility: AccessibilityClass, for purpose: ReleasePurpose,
        log: ReleaseLog? = nil
    ) -> ReleaseAnswer {
        let answer = read(reference, class: accessibility)
        guard case .found(let secret) = answer else { return .unread(answer) }
        let entry = ReleaseEntry(
            what: ReleaseEntry.what(reference), item: reference.rawValue, by: purpose.by, host: purpose.host,
            detail: "host key \(purpose.hostKey)")
        do {
            try record(entry, log: log)
        } catch {
            return .notLogged(error)
        }
        return .released(secret)
    }

    /// Hands back `value` (made from a stored secret without handing the secret out, e.g. a signature) once
    /// `entry` is in the log; throws, and `value` goes nowhere, when it could not be written.
    public func release<Value>(_ value: Value, logging entry: ReleaseEntry, log: ReleaseLog? = nil)
        throws(ReleaseLogError) -> Value
    {
        try record(entry, log: log)
        return value
    }

    /// Writes a line that releases nothing itself: a refused signature, a fleet run's summary, an export's items
    /// (written before the export is handed back). `log` is this vault's own unless a caller names another.
    public func record(_ entry: ReleaseEntry, log: ReleaseLog? = nil) throws(ReleaseLogError) {
        try (log ?? ReleaseLog(locations: locations)).append(entry, vault: self)
    }
}
