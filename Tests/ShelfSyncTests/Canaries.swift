// Canaries: finding recognisable text in remote files and git objects in every form it could leak in — raw, base64
// at each of the three byte alignments, and hex in either case.
import Foundation
import TestSupport
import XCTest

enum Canaries {
    /// The byte strings any of which betrays `canary`.
    static func forms(_ canary: String) -> [Data] {
        let raw = Data(canary.utf8)
        var out = [raw]
        for shift in 0..<3 {
            // In a longer base64 stream the canary starts at any byte offset; the characters that encode only its own
            // bytes are the same whatever surrounds it.
            let encoded = (Data(repeating: 0, count: shift) + raw).base64EncodedString()
            let core = encoded.dropFirst(shift == 0 ? 0 : 4).dropLast(4)
            if core.count >= 8 { out.append(Data(core.utf8)) }
        }
        let hex = raw.map { String(format: "%02x", $0) }.joined()
        out.append(Data(hex.utf8))
        out.append(Data(hex.uppercased().utf8))
        return out
    }

    /// Where any canary appears in `bytes`, by name.
    static func found(_ canaries: [String], in bytes: Data) -> [String] {
        canaries.filter { canary in forms(canary).contains { bytes.range(of: $0) != nil } }
    }

    /// Every file under a folder remote, checked.
    static func assertAbsent(
        _ canaries: [String], inFolder root: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        for relative in files(under: root) {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: root + "/" + relative))
            XCTAssertEqual(found(canaries, in: bytes), [], "\(relative)", file: file, line: line)
            XCTAssertEqual(found(canaries, in: Data(relative.utf8)), [], "the name \(relative)", file: file, line: line)
        }
    }

    /// Every object in a git repository (blobs, trees, commits, whatever is reachable or not), checked.
    static func assertAbsent(
        _ canaries: [String], inGit repository: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let objects = try gitObjects(repository)
        XCTAssertFalse(objects.isEmpty, "the repository holds objects", file: file, line: line)
        XCTAssertEqual(found(canaries, in: objects), [], "git objects of \(repository)", file: file, line: line)
    }

    /// The contents of every object in the repository, as bytes (entries are binary).
    static func gitObjects(_ repository: String) throws -> Data {
        let process = Process()
        process.executableURL = TestTool.git.url
        process.arguments = ["-C", repository, "cat-file", "--batch-all-objects", "--batch"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return data
    }
}
