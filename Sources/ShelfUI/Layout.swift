// Layout: where each pane goes for a terminal size; the reducer uses it for paging, the widgets for drawing.
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

    public init(rows: Int, columns: Int) {
        title = Rect(row: 0, column: 0, height: 1, width: columns)
        status = Rect(row: rows - 1, column: 0, height: 1, width: columns)
        let bodyHeight = max(0, rows - 2)
        let groupWidth = columns >= 110 ? 28 : 20
        groups = Rect(row: 1, column: 0, height: bodyHeight, width: groupWidth)
        let rightColumn = groupWidth + 1
        let rightWidth = max(0, columns - rightColumn)
        detailsBeside = columns >= 110
        if detailsBeside {
            let detailsWidth = min(48, rightWidth / 2)
            hosts = Rect(row: 1, column: rightColumn, height: bodyHeight, width: rightWidth - detailsWidth - 1)
            details = Rect(row: 1, column: columns - detailsWidth, height: bodyHeight, width: detailsWidth)
        } else {
            let detailsHeight = min(9, bodyHeight / 2)
            hosts = Rect(row: 1, column: rightColumn, height: bodyHeight - detailsHeight - 1, width: rightWidth)
            details = Rect(row: rows - 1 - detailsHeight, column: rightColumn, height: detailsHeight, width: rightWidth)
        }
    }

    /// Host rows that fit under the list's header line.
    public var hostRows: Int { max(1, hosts.height - 1) }
}
