// Layout: where each pane goes for a terminal size; the reducer uses it for paging, the widgets for drawing. The
// panes share the width in proportion, so a bigger terminal gives every pane more room (the details pane
// included: fingerprints, auth sources and forward names fit at 200 columns instead of being cut at 45).
public struct Rect: Sendable, Equatable {
    public var row: Int
    public var column: Int
    public var height: Int
    public var width: Int
}

public struct Layout: Sendable, Equatable {
    public var title: Rect
    public var groups: Rect
    public var hosts: Rect
    public var details: Rect
    /// True when the details pane sits right of the host list (wide terminals), false when below it.
    public var detailsBeside: Bool
    public var status: Rect

    /// From this width on the details pane sits beside the host list.
    public static let besideFrom = 110
    /// Shares of the width: the group tree's (of the whole), and the details pane's (of what is right of the tree).
    static let groupShare = 0.17
    static let detailsShare = 0.45

    public init(rows: Int, columns: Int) {
        title = Rect(row: 0, column: 0, height: 1, width: columns)
        status = Rect(row: rows - 1, column: 0, height: 1, width: columns)
        let bodyHeight = max(0, rows - 2)
        let groupWidth = min(34, max(20, Int(Double(columns) * Self.groupShare)))
        groups = Rect(row: 1, column: 0, height: bodyHeight, width: groupWidth)
        let rightColumn = groupWidth + 1
        let rightWidth = max(0, columns - rightColumn)
        detailsBeside = columns >= Self.besideFrom
        if detailsBeside {
            let detailsWidth = max(36, Int(Double(rightWidth) * Self.detailsShare))
            hosts = Rect(row: 1, column: rightColumn, height: bodyHeight, width: rightWidth - detailsWidth - 1)
            details = Rect(row: 1, column: columns - detailsWidth, height: bodyHeight, width: detailsWidth)
        } else {
            // Below the list: a third of the body's height or so, at least nine rows when the body has room.
            let detailsHeight = min(max(9, bodyHeight * 2 / 5), bodyHeight / 2)
            hosts = Rect(row: 1, column: rightColumn, height: bodyHeight - detailsHeight - 1, width: rightWidth)
            details = Rect(row: rows - 1 - detailsHeight, column: rightColumn, height: detailsHeight, width: rightWidth)
        }
    }

    /// Host rows that fit under the list's header line.
    public var hostRows: Int { max(1, hosts.height - 1) }
}
