// ProcessMemoryTests: what the user service gives back after a burst (ProcessMemory.settle) — only mappings no write
// can have reached are released (read-only, private, of a file, with no page of their own), and in a real process
// the read-only file pages it had mapped are unmapped by a settle while the process runs on.
import Foundation
import XCTest
@testable import ShelfSystem

final class ProcessMemoryTests: XCTestCase {
    func testOnlyReadOnlyFileMappingsWithNoPageOfTheirOwnAreReleased() {
        let smaps = """
            5595bec1a000-5595bfa35000 r-xp 00249000 fe:00 5466069                    /usr/bin/sshelf
            Size:              14444 kB
            Rss:               10296 kB
            Private_Dirty:      4096 kB
            Anonymous:             0 kB
            Swap:                  0 kB
            VmFlags: rd ex mr mw me sd
            5595bfa35000-5595bfa9c000 r--p 01064000 fe:00 5466069                    /usr/bin/sshelf
            Rss:                 412 kB
            Private_Dirty:       412 kB
            Anonymous:           412 kB
            5595bfa9c000-5595bfcf8000 rw-p 010cb000 fe:00 5466069                    /usr/bin/sshelf
            Rss:                1468 kB
            Anonymous:             0 kB
            7f1c2a000000-7f1c2a100000 r--p 00000000 fe:00 1234                       /usr/lib/x86_64-linux-gnu/libm.so.6
            Rss:                  64 kB
            Anonymous:             0 kB
            Swap:                  8 kB
            7f1c2b000000-7f1c2b200000 r--p 00000000 fe:00 99 /home/me/a file (deleted)
            Rss:                  16 kB
            Anonymous:             0 kB
            7ffc95fe3000-7ffc95fe5000 r-xp 00000000 00:00 0                          [vdso]
            Rss:                   4 kB
            Anonymous:             0 kB
            7ffc95fe6000-7ffc95fe8000 r--p 00000000 00:00 0
            Rss:                   8 kB
            Anonymous:             0 kB
            """
        let mappings = ProcessMemory.Mapping.all(in: smaps)
        XCTAssertEqual(mappings.count, 7)
        XCTAssertEqual(mappings[0].start, 0x5595_bec1_a000)
        XCTAssertEqual(mappings[0].end, 0x5595_bfa3_5000)
        XCTAssertEqual(mappings[0].residentKiB, 10296)
        XCTAssertEqual(mappings[4].path, "/home/me/a file (deleted)")
        XCTAssertEqual(
            mappings.map(\.isReleasable),
            [
                true,  // code of a file, every page the file's (dirty: the file just written, not yet on disk)
                false,  // relocated constants: pages of its own (written once by the loader)
                false,  // writable
                false,  // a page swapped out is a page of its own
                true,  // a file replaced since: its pages are still that file's
                false,  // the kernel's [vdso]
                false,  // anonymous
            ])
    }

    /// A settle in this very process: the read-only file pages mapped before are unmapped (what runs after maps back
    /// only what it touches), and the process runs on with its code and constants intact.
    func testASettleUnmapsReadOnlyFilePagesAndTheProcessRunsOn() throws {
        func mapped() throws -> Int {
            let smaps = try String(contentsOfFile: "/proc/self/smaps", encoding: .utf8)
            return ProcessMemory.Mapping.all(in: smaps).filter(\.isReleasable).map(\.residentKiB).reduce(0, +)
        }
        let before = try mapped()
        XCTAssertGreaterThan(before, 0, "a running test process has code mapped")
        let released = ProcessMemory.settle()
        let after = try mapped()
        XCTAssertGreaterThan(released, 0)
        XCTAssertLessThan(after, before / 2, "mapped before: \(before) KiB, after: \(after) KiB")
        // Code and constant data come back from the file as they were.
        XCTAssertEqual(String(decoding: Data("still here".utf8).base64EncodedData(), as: UTF8.self), "c3RpbGwgaGVyZQ==")
        XCTAssertEqual([3, 1, 2].sorted(), [1, 2, 3])
    }
}
