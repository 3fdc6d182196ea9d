// RecordingReaderBoundTests: the file reader under `play`, `sessions search` and `sessions list` (ChunkReader) holds
// at most 2 MiB whatever the file's length — a 24 MiB file of length-prefixed pieces as a recording's chunks are
// (up to 256 KiB and a little more), read through, the buffer measured after every take; what it hands out is the
// file's bytes in order.
import Foundation
@testable import ShelfOperations
import TestSupport
import XCTest

final class RecordingReaderBoundTests: XCTestCase {
    func testTheReadersBufferStaysBoundedOverALongFile() throws {
        let home = TempHome()
        let path = home.root + "/pieces"
        var file = Data()
        var lengths: [Int] = []
        var generator = SystemRandomNumberGenerator()
        while file.count < 24 << 20 {
            let length = Int.random(in: 1...(256 << 10) + 17, using: &generator)
            lengths.append(length)
            var prefix = UInt32(length).bigEndian
            file.append(Data(bytes: &prefix, count: 4))
            file.append(Data(repeating: UInt8(lengths.count % 251), count: length))
        }
        try file.write(to: URL(fileURLWithPath: path))
        let fd = open(path, O_RDONLY)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }

        var reader = ChunkReader(fd: fd)
        var most = 0
        for (index, length) in lengths.enumerated() {
            let prefix = try XCTUnwrap(reader.take(4))
            XCTAssertEqual(prefix.reduce(0) { $0 << 8 | Int($1) }, length)
            most = max(most, reader.heldBytes)
            let piece = try XCTUnwrap(reader.take(length))
            XCTAssertEqual(piece.count, length)
            XCTAssertEqual(piece.first, UInt8((index + 1) % 251))
            XCTAssertEqual(piece.last, UInt8((index + 1) % 251))
            most = max(most, reader.heldBytes)
        }
        XCTAssertNil(reader.take(4))
        XCTAssertTrue(reader.atEnd)
        XCTAssertLessThanOrEqual(most, 2 << 20, "the reader held \(most) bytes of a \(file.count)-byte file")
    }
}
