// FilesOrderTests: the file pane's order with prepared keys (how a big folder is sorted while it is read) is
// FilesPane.precedes' order — folders and links to folders first, then names naturally, escaped names included.
import FoundationEssentials
import XCTest

@testable import ShelfUI

final class FilesOrderTests: XCTestCase {
    func testTheOrderIsThePanesOrder() {
        var entries = FilesPaneTests.remoteEntries.reversed().map { $0 }
        for index in stride(from: 0, to: 3_000, by: 7) {
            let kind: FileEntry.Kind = index % 5 == 0 ? .directory : .file
            entries.append(FileEntry(name: Array("name-\(index % 97)-\(index)".utf8), kind: kind))
            entries.append(FileEntry(name: Array("Name-0\(index % 13)".utf8) + [0xFF], kind: .file))
        }
        entries.append(FileEntry(name: Array("zz".utf8), kind: .link, linkToDirectory: true))
        XCTAssertEqual(FilesOrder.sorted(entries), entries.sorted(by: FilesPane.precedes))
    }

    func testEntriesAddedAsTheyArriveComeOutInOrder() {
        var order = FilesOrder()
        let batches = [
            ["file10", "file9", "Docs"], ["file1", "docs", "file09"], ["a", "B", "c"],
        ]
        var all: [FileEntry] = []
        for batch in batches {
            for name in batch {
                let entry = FileEntry(name: Array(name.utf8), kind: name.lowercased() == "docs" ? .directory : .file)
                order.append(entry)
                all.append(entry)
            }
            XCTAssertEqual(order.sorted(), all.sorted(by: FilesPane.precedes))
        }
        XCTAssertEqual(order.count, 9)
        XCTAssertEqual(order.sorted().prefix(2).map(\.shown), ["docs", "Docs"])
    }
}
