// ConflictItem: one merge conflict worded for a list — the TUI's conflict list (`C`) shows it, ShelfServices'
// ConflictItems words it from the store's record, and `sshelf sync conflicts` prints the same words. Plain data, here
// so the services and the TUI's state both can name it without the services importing the TUI.

/// One merge conflict as the list shows it (worded by the app from the store's record).
public struct ConflictItem: Sendable, Equatable {
    public var id: Int
    /// `host web`
    public var record: String
    public var field: String
    public var kept: String
    public var other: String
    /// `this device, 2026-12-01 18:20`
    public var keptBy: String
    public var otherBy: String
    public var why: String
    public var isNew: Bool
    /// `kept` or `other` once settled.
    public var settled: String?
    /// Whether either side can be taken (not a deleted record's conflict).
    public var settleable: Bool

    public init(
        id: Int, record: String, field: String, kept: String, other: String, keptBy: String, otherBy: String,
        why: String, isNew: Bool, settled: String?, settleable: Bool
    ) {
        self.id = id
        self.record = record
        self.field = field
        self.kept = kept
        self.other = other
        self.keptBy = keptBy
        self.otherBy = otherBy
        self.why = why
        self.isNew = isNew
        self.settled = settled
        self.settleable = settleable
    }
}
