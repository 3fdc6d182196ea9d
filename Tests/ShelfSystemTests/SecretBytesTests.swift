// SecretBytes: the one secret buffer of the vault and the SSH code. The properties that matter are invisible,
// so the tests read them from the kernel: the bytes sit in their own mapping, excluded from core dumps,
// between two inaccessible guard pages, and the text form never shows them.
import Foundation
import ShelfSystem
import XCTest

final class SecretBytesTests: XCTestCase {
    /// The /proc/self/smaps block of the mapping that contains `address`, and the permissions of its
    /// neighbours (the mappings that end where it starts and start where it ends).
    private func mapping(containing address: UInt) -> (perms: String, flags: String, before: String?, after: String?) {
        let text = Self.readAll("/proc/self/smaps")
        var blocks: [(start: UInt, end: UInt, perms: String, flags: String)] = []
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let range = fields.first, range.contains("-"), fields.count >= 2, !range.hasSuffix(":") {
                let bounds = range.split(separator: "-").compactMap { UInt($0, radix: 16) }
                guard bounds.count == 2 else { continue }
                blocks.append((bounds[0], bounds[1], String(fields[1]), ""))
            } else if line.hasPrefix("VmFlags:"), !blocks.isEmpty {
                blocks[blocks.count - 1].flags = String(line.dropFirst("VmFlags:".count))
            }
        }
        guard let index = blocks.firstIndex(where: { $0.start <= address && address < $0.end }) else {
            XCTFail("no mapping of /proc/self/smaps holds the secret")
            return ("", "", nil, nil)
        }
        let block = blocks[index]
        let before = blocks.first { $0.end == block.start }?.perms
        let after = blocks.first { $0.start == block.end }?.perms
        return (block.perms, block.flags, before, after)
    }

    /// procfs files report size 0, so Foundation's one-shot reads stop early: read until EOF.
    private static func readAll(_ path: String) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(fd, &chunk, chunk.count)
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    func testTheBytesLiveBetweenGuardPagesAndStayOutOfCoreDumps() throws {
        let secret = SecretBytes(Array("correct horse battery staple".utf8))
        let address = secret.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
        let found = mapping(containing: address)
        XCTAssertEqual(found.perms, "rw-p")
        XCTAssertTrue(found.flags.split(separator: " ").contains("dd"), "MADV_DONTDUMP: \(found.flags)")
        XCTAssertEqual(found.before, "---p", "a guard page in front")
        XCTAssertEqual(found.after, "---p", "a guard page behind")
        // The last byte is the last of its page: one byte further is the guard page.
        let pageSize = UInt(sysconf(Int32(_SC_PAGESIZE)))
        XCTAssertEqual((address + UInt(secret.count)) % pageSize, 0)
    }

    func testTakeMovesTheArrayAndCopiesCompare() {
        var typed = Array("hunter2".utf8)
        let secret = SecretBytes.take(&typed)
        XCTAssertTrue(typed.isEmpty)
        XCTAssertEqual(secret.withUnsafeBytes { Array($0) }, Array("hunter2".utf8))
        XCTAssertTrue(secret.isEqual(to: SecretBytes(Array("hunter2".utf8))))
        XCTAssertFalse(secret.isEqual(to: SecretBytes(Array("hunter3".utf8))))
        XCTAssertFalse(secret.isEqual(to: SecretBytes(Array("hunter".utf8))))
        XCTAssertTrue(SecretBytes(count: 0).isEqual(to: SecretBytes([])))
    }

    func testJoinPrefixAndNulTerminatedCopies() {
        let joined = SecretBytes.joined([
            SecretBytes(Array("ab".utf8)), SecretBytes(count: 0), SecretBytes(Array("cd".utf8)),
        ])
        XCTAssertEqual(joined.withUnsafeBytes { Array($0) }, Array("abcd".utf8))
        XCTAssertEqual(joined.prefix(3).withUnsafeBytes { Array($0) }, Array("abc".utf8))
        XCTAssertEqual(joined.prefix(99).count, 4)
        let (text, length) = joined.withNulTerminated { (String(cString: $0), $1) }
        XCTAssertEqual(text, "abcd")
        XCTAssertEqual(length, 4)
    }

    func testTheTextFormNeverShowsTheBytes() {
        let secret = SecretBytes(Array("CANARY-secret".utf8))
        XCTAssertFalse("\(secret)".contains("CANARY"))
        XCTAssertFalse(String(reflecting: secret).contains("CANARY"))
        XCTAssertTrue("\(secret)".contains("13 bytes"))
    }
}
