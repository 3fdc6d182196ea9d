// SyncReport: what one sync run did and the status it leaves: counts, remote content not used (each with why),
// warnings, a notice about the credential track, unseen merge conflicts, and `synced` or `localFallback(reason)`.
// Saved as JSON so `sync status` and the TUI can show it.
import FoundationEssentials
import ShelfCore

public struct SyncReport: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable { case off, synced, localFallback }

    public var state: State
    public var at: Date
    public var reason: String?
    public var hint: String?
    /// The hint as data, for each face to word (`hint` is its face-neutral words); nil in a report saved before it.
    public var guidance: Hint?
    /// Records received that changed something here, and records sent.
    public var pulled = 0
    public var pushed = 0
    /// Credential track: items received, items in the set sent, device-only items moved to syncable classes.
    public var credentialsReceived = 0
    public var credentialsSent = 0
    public var migrated = 0
    /// Whether the credential track is on for this device.
    public var credentials = false
    /// Set when other devices send credentials and this one does not take them: "credentials not joined on this
    /// device". Not a fallback: config syncs.
    public var notice: String?
    /// Remote files or records that were not used, each with why; nothing local is lost by skipping them.
    public var skipped: [String] = []
    /// What the user should know although the run went through (a remote that lost this device's entries, old
    /// plaintext left in git history).
    public var warnings: [String] = []
    /// What changed in the group during the run (a device enrolled, a key rotated).
    public var events: [String] = []
    /// Merge conflicts not marked seen yet (`sshelf sync conflicts`); the TUI shows them until seen.
    public var conflicts = 0
    /// Format-1 files removed from the remote in this run (git keeps them in its history: the runner says so).
    public var removedFormatOne = 0
    /// This device's place in the group: "member", "waiting", "revoked", or nil before it has one.
    public var membership: String?
    public var transport: String?
    public var location: String?

    public init(state: State, at: Date, reason: String? = nil) {
        self.state = state
        self.at = at
        self.reason = reason
    }

    public var status: SyncStatus {
        switch state {
        case .off: .off
        case .synced: .synced(at: at, pendingUp: 0, pendingDown: 0)
        case .localFallback: .localFallback(reason: reason ?? "unknown")
        }
    }

    /// Falls back with the first serious reason of the run; later ones go to `skipped`.
    mutating func fail(_ failure: SyncFailure) {
        if state == .localFallback {
            skipped.append(failure.reason)
            return
        }
        state = .localFallback
        reason = failure.reason
        hint = failure.hint
        guidance = failure.guidance
    }
}

/// Why sync fell back to the local store: each case is a true, specific reason the user can act on.
public struct SyncFailure: Error, Sendable, CustomStringConvertible {
    public var reason: String
    public var hint: String?
    /// The hint as data, when it names a command or the vault passphrase: each face words it.
    public var guidance: Hint?
    public var description: String { reason }

    public init(_ reason: String, hint: String? = nil) {
        self.reason = reason
        self.hint = hint
    }

    public init(_ reason: String, guidance: Hint) {
        self.init(reason, hint: guidance.words)
        self.guidance = guidance
    }

    static func brief(_ error: Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error { return context.debugDescription }
        if let framing = error as? FramingError { return framing.description }
        return "malformed JSON"
    }
}
