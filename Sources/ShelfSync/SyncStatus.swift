// SyncStatus: what the status line says about sync: off, syncing, synced, or local fallback with the real reason.
import FoundationEssentials

public enum SyncStatus: Sendable, Equatable {
    case off
    case syncing
    case synced(at: Date, pendingUp: Int, pendingDown: Int)
    case localFallback(reason: String)

    public var summary: String {
        switch self {
        case .off: "sync off"
        case .syncing: "syncing"
        case .synced(_, let up, let down): up + down == 0 ? "synced" : "synced (\(up) up, \(down) down pending)"
        case .localFallback(let reason): "local fallback: \(reason)"
        }
    }
}
