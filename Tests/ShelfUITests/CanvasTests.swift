// Canvas: writes clip at the edges and the text snapshot trims trailing blanks.
import ShelfUI
import XCTest

final class CanvasTests: XCTestCase {
    func testWriteClipsAtRightEdgeAndSnapshotTrims() {
        var canvas = Canvas(rows: 2, columns: 5)
        canvas.write("abcdefg", row: 0, column: 1)
        canvas.write("xy", row: 1, column: 0)
        XCTAssertEqual(canvas.text, " abcd\nxy")
    }
}
