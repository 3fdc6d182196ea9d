// SyncReport: what one sync run did and the status it leaves: counts, skipped remote files with their
// reasons, and `synced` or `localFallback(reason)`. Saved as JSON so `sync status` and the TUI can show it.
import Foundation
import ShelfCore

public struct SyncReport: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable { case off, synced, localFallback }

    public var state: State
    public var at: Date
    public var reason: String?
    public var pulled = 0
    public var pushed = 0
    /// Credential track: items received, items in the batch sent, device-only items moved to syncable classes.
    public var credentialsReceived = 0
    public var credentialsSent = 0
    public var migrated = 0
    /// Whether the credential track ran (it needs `sync enable --credentials` or `sync join`).
    public var credentials = false
    /// Remote files or records that were not used, each with why; nothing local is lost by skipping them.
    public var skipped: [String] = []
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
}

/// Why sync fell back to the local store: each case is a true, specific reason the user can act on.
public struct SyncFailure: Error, Sendable, CustomStringConvertible {
    public var reason: String
    public var hint: String?
    public var description: String { reason }

    public init(_ reason: String, hint: String? = nil) {
        self.reason = reason
        self.hint = hint
    }
}
