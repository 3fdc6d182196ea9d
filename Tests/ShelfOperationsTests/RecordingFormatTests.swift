// RecordingFormatTests: a recording file in both formats — format 1 (secretstream) and format 2 (AES-256-GCM) — as
// the recorder's writer makes it and every command's reader reads it: the events come back, the file's SHA-256 is
// the one the writer reports; a chunk changed, moved, dropped, repeated or taken from another recording does not
// open, nor one with its final flag set or cleared, nor a file under another id or key; a file cut after a whole
// chunk or inside one reads as interrupted, bytes after the final chunk as damaged. The recorder writes format 2
// where the CPU has AES-NI and PCLMULQDQ and format 1 when told it has not.
import Foundation
@testable import ShelfOperations
@testable import ShelfVault
import TestSupport
import XCTest

final class RecordingFormatTests: XCTestCase {
    private let home = TempHome()

    private func newKey() -> RecordingsKey {
        RecordingsKey(bytes: SecretBytes((0..<32).map { _ in UInt8.random(in: 0...255) }))
    }

    private func events(_ chunk: Int) -> [RecordingEvent] {
        [
            .output(time: Double(chunk), bytes: Array("chunk \(chunk) output \u{1b}[1m".utf8)),
            .resize(time: Double(chunk) + 0.5, columns: 80 + chunk, rows: 24),
            .output(time: Double(chunk) + 0.75, bytes: (0..<(1000 * chunk + 7)).map { UInt8(truncatingIfNeeded: $0) }),
        ]
    }

    /// A recording of `chunks` chunks written as SessionRecorder writes one; `finished` ends it with the final chunk.
    /// Answers its path and the digest and length the writer reported.
    private func write(
        _ cipher: RecordingCipherVersion, key: RecordingsKey, id: UUID, chunks: Int = 4, finished: Bool = true
    ) throws -> (path: String, digest: String, size: Int) {
        let path = home.root + "/\(id.uuidString.lowercased()).rec"
        let writer = try RecordingWriter(path: path, id: id, key: key, cipher: cipher)
        for chunk in 0..<chunks {
            var plaintext: [UInt8] = []
            for event in events(chunk) { RecordingFormat.appendEvent(event, to: &plaintext) }
            if finished && chunk == chunks - 1 { RecordingFormat.appendEvent(.end(time: 9, how: "0"), to: &plaintext) }
            writer.append(plaintext, final: finished && chunk == chunks - 1)
        }
        let (digest, size) = writer.close()
        return (path, digest, size)
    }

    private func read(_ path: String, id: UUID, key: RecordingsKey) throws -> ([RecordingEvent], RecordingState) {
        var got: [RecordingEvent] = []
        let state = try Recordings.read(path, id: id, key: key) {
            got.append($0)
            return true
        }
        return (got, state)
    }

    /// The file's header and its chunks (each with its length prefix), as the format lays them out.
    private func pieces(_ path: String, _ cipher: RecordingCipherVersion) throws -> (header: Data, chunks: [Data]) {
        let file = try Data(contentsOf: URL(fileURLWithPath: path))
        let headerLength = 8 + 16 + cipher.headerLength
        var chunks: [Data] = []
        var at = headerLength
        while at < file.count {
            let length = file[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) }
            chunks.append(Data(file[at..<(at + 4 + length)]))
            at += 4 + length
        }
        return (Data(file.prefix(headerLength)), chunks)
    }

    private func put(_ header: Data, _ chunks: [Data], at path: String) throws {
        try (chunks.reduce(header, +)).write(to: URL(fileURLWithPath: path))
    }

    private func isDamaged(_ state: RecordingState) -> Bool {
        if case .damaged = state { return true }
        return false
    }

    func testBothFormatsRoundTripWithTheirMagicAndTheFilesSHA256() throws {
        for cipher in RecordingCipherVersion.allCases {
            let key = newKey()
            let id = UUID()
            let written = try write(cipher, key: key, id: id)
            let file = try Data(contentsOf: URL(fileURLWithPath: written.path))
            XCTAssertEqual(String(decoding: file.prefix(8), as: UTF8.self), "SSHELFR\(cipher.rawValue)")
            XCTAssertEqual(file.count, written.size)
            let digest = RecordingDigest()
            file.withUnsafeBytes { digest.update($0) }
            XCTAssertEqual(digest.hex(), written.digest, "\(cipher): the digest is the whole file's SHA-256")
            let (got, state) = try read(written.path, id: id, key: key)
            XCTAssertEqual(state, .finished, "\(cipher)")
            XCTAssertEqual(got, (0..<4).flatMap { events($0) } + [.end(time: 9, how: "0")], "\(cipher)")
            // No plaintext in the file: the output's text is not there.
            XCTAssertNil(file.range(of: Data("chunk 1 output".utf8)), "\(cipher)")
            // Unfinished (its writer gone before the final chunk): everything written reads, as interrupted.
            let cut = try write(cipher, key: key, id: UUID(), finished: false)
            let (partial, cutState) = try read(cut.path, id: try XCTUnwrap(UUID(uuidString: idOf(cut.path))), key: key)
            XCTAssertEqual(cutState, .interrupted, "\(cipher)")
            XCTAssertEqual(partial, (0..<4).flatMap { events($0) }, "\(cipher)")
        }
    }

    /// Longer than several of the writer's hand-offs to the disk (every 4 MiB): every byte reads back, in order.
    func testARecordingPastSeveralHandOffsToTheDiskReadsBackWhole() throws {
        let key = newKey()
        let id = UUID()
        let path = home.root + "/long.rec"
        let writer = try RecordingWriter(path: path, id: id, key: key, cipher: .preferred())
        let chunks = 3 * RecordingWriter.handOffEvery / SessionRecorder.chunkLimit + 5
        for chunk in 0..<chunks {
            var plaintext: [UInt8] = []
            let payload = [UInt8](repeating: UInt8(chunk % 251), count: SessionRecorder.chunkLimit - 9)
            RecordingFormat.appendEvent(kind: 0x6F, time: Double(chunk), payload: payload, to: &plaintext)
            if chunk == chunks - 1 { RecordingFormat.appendEvent(.end(time: 99, how: "0"), to: &plaintext) }
            writer.append(plaintext, final: chunk == chunks - 1)
        }
        let (_, size) = writer.close()
        XCTAssertGreaterThan(size, 3 * RecordingWriter.handOffEvery)
        var seen = 0
        let state = try Recordings.read(path, id: id, key: key) { event in
            if case .output(_, let bytes) = event {
                XCTAssertEqual(bytes, [UInt8](repeating: UInt8(seen % 251), count: SessionRecorder.chunkLimit - 9))
                seen += 1
            }
            return true
        }
        XCTAssertEqual(state, .finished)
        XCTAssertEqual(seen, chunks)
    }

    private func idOf(_ path: String) -> String {
        String(path.split(separator: "/").last?.dropLast(4) ?? "")
    }

    func testAChunkChangedMovedDroppedRepeatedOrFromAnotherRecordingDoesNotOpen() throws {
        for cipher in RecordingCipherVersion.allCases {
            let key = newKey()
            let id = UUID()
            let written = try write(cipher, key: key, id: id)
            let (header, chunks) = try pieces(written.path, cipher)
            XCTAssertEqual(chunks.count, 4)
            let otherID = UUID()
            let other = try pieces(try write(cipher, key: key, id: otherID).path, cipher)
            var changed = chunks
            changed[1][changed[1].startIndex + 4 + 20] ^= 0x01
            var cases: [(String, Data, [Data])] = [
                ("a byte changed", header, changed),
                ("two chunks swapped", header, [chunks[0], chunks[2], chunks[1], chunks[3]]),
                ("a chunk dropped", header, [chunks[0], chunks[2], chunks[3]]),
                ("a chunk repeated", header, [chunks[0], chunks[1], chunks[1], chunks[2], chunks[3]]),
                (
                    "a chunk from another recording, same key, same place", header,
                    [chunks[0], other.chunks[1], chunks[2], chunks[3]]
                ),
                ("another recording's chunks under this header", header, other.chunks),
            ]
            var salted = header
            salted[salted.startIndex + 8 + 16] ^= 0x01  // format 2: the salt; format 1: the stream's header
            cases.append(("the cipher's header changed", salted, chunks))
            if cipher == .aesGCM {
                // The flag is in the clear, bound as associated data: set early or cleared at the end, nothing opens.
                var early = chunks
                early[1][early[1].startIndex + 4] = 1
                cases.append(("a middle chunk marked final", header, early))
                var cleared = chunks
                cleared[3][cleared[3].startIndex + 4] = 0
                cases.append(("the final chunk marked not final", header, cleared))
                var odd = chunks
                odd[2][odd[2].startIndex + 4] = 2
                cases.append(("a flag neither 0 nor 1", header, odd))
            }
            for (what, head, body) in cases {
                try put(head, body, at: written.path)
                let (_, state) = try read(written.path, id: id, key: key)
                XCTAssertTrue(isDamaged(state), "\(cipher), \(what): \(state)")
            }
            // The whole file under another id (renamed, its header's id rewritten): its chunks are bound to the id.
            var renamed = header
            renamed.replaceSubrange(
                (renamed.startIndex + 8)..<(renamed.startIndex + 24), with: RecordingFormat.idBytes(otherID))
            try put(renamed, chunks, at: written.path)
            XCTAssertTrue(isDamaged(try read(written.path, id: otherID, key: key).1), "\(cipher): another id")
            // A format this sshelf does not know (a newer one's): said so, not read as damage of another kind.
            var newer = header
            newer[newer.startIndex + 7] = UInt8(ascii: "9")
            try put(newer, chunks, at: written.path)
            XCTAssertEqual(
                try read(written.path, id: id, key: key).1,
                .damaged("its format (SSHELFR9) is not one this sshelf reads: a newer sshelf wrote it"), "\(cipher)")
            newer[newer.startIndex + 7] = 0x1B  // an escape, which the message must not print as it is
            try put(newer, chunks, at: written.path)
            XCTAssertEqual(
                try read(written.path, id: id, key: key).1,
                .damaged("its format (SSHELFR\\x1b) is not one this sshelf reads: a newer sshelf wrote it"))
            // As written, under another key: nothing opens.
            try put(header, chunks, at: written.path)
            XCTAssertTrue(isDamaged(try read(written.path, id: id, key: newKey()).1), "\(cipher): another key")
            XCTAssertEqual(try read(written.path, id: id, key: key).1, .finished, "\(cipher): as written")
        }
    }

    func testAFileCutShortIsInterruptedAndBytesAfterTheEndAreRefused() throws {
        for cipher in RecordingCipherVersion.allCases {
            let key = newKey()
            let id = UUID()
            let written = try write(cipher, key: key, id: id)
            let (header, chunks) = try pieces(written.path, cipher)
            // Its final chunk gone (kill -9 before it was written): what came before reads, as interrupted.
            try put(header, Array(chunks.prefix(3)), at: written.path)
            var (got, state) = try read(written.path, id: id, key: key)
            XCTAssertEqual(state, .interrupted, "\(cipher)")
            XCTAssertEqual(got, (0..<3).flatMap { events($0) }, "\(cipher)")
            // Cut inside the final chunk (a crash during its write): the same.
            try put(header, Array(chunks.prefix(3)) + [chunks[3].prefix(chunks[3].count / 2)], at: written.path)
            (got, state) = try read(written.path, id: id, key: key)
            XCTAssertEqual(state, .interrupted, "\(cipher)")
            XCTAssertEqual(got.count, 9, "\(cipher)")
            // Anything after the final chunk: a chunk of its own, or a copy of the final one.
            for extra in [chunks[1], chunks[3]] {
                try put(header, chunks + [extra], at: written.path)
                XCTAssertEqual(
                    try read(written.path, id: id, key: key).1, .damaged("bytes after its end"), "\(cipher)")
            }
        }
    }

    func testTheRecorderWritesFormatTwoWhereTheCPUHasAESAndFormatOneWhenNot() throws {
        XCTAssertEqual(RecordingCipherVersion.preferred(hardwareAES: false), .secretstream)
        XCTAssertEqual(RecordingCipherVersion.preferred(hardwareAES: true), .aesGCM)
        let flags =
            try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8).split(separator: "\n")
            .first { $0.hasPrefix("flags") }.map { $0.split(separator: " ").map(String.init) } ?? []
        let hasInstructions = flags.contains("aes") && flags.contains("pclmulqdq")
        XCTAssertEqual(
            RecordingCipherVersion.hardwareAES(), hasInstructions, "libsodium's check against the CPU's flags")
        guard hasInstructions else {
            throw skipped("this CPU has no AES-NI and PCLMULQDQ: the recorder writes format 1")
        }
        XCTAssertEqual(RecordingCipherVersion.preferred(), .aesGCM)
        setenv("SSHELF_TEST_NO_AES_GCM", "1", 1)
        defer { unsetenv("SSHELF_TEST_NO_AES_GCM") }
        XCTAssertFalse(RecordingCipherVersion.hardwareAES())
        XCTAssertEqual(RecordingCipherVersion.preferred(), .secretstream)
    }
}
