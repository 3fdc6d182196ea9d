// VisibleTextTests: the search's filter (VisibleText, the visible text of a terminal's output) against the rule
// written the plain way, a byte at a time — on random output full of escape sequences, controls and capitals, fed in
// random pieces (a sequence cut between two outputs), the two agree byte for byte.
import Foundation
@testable import ShelfOperations
import XCTest

final class VisibleTextTests: XCTestCase {
    /// The rule, a byte at a time: escape sequences (CSI; OSC, DCS, APC, PM, SOS to BEL or ESC \) and controls
    /// dropped, a line break or tab a space (once), ASCII letters lowered.
    private func reference(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var mode = 0  // 0 text, 1 escape, 2 csi, 3 string, 4 string escape
        for byte in bytes {
            switch mode {
            case 0:
                if byte == 0x1B {
                    mode = 1
                } else if byte == 0x0A || byte == 0x0D || byte == 0x09 {
                    if out.last != 0x20 { out.append(0x20) }
                } else if byte >= 0x20 && byte != 0x7F {
                    out.append(byte >= 0x41 && byte <= 0x5A ? byte + 32 : byte)
                }
            case 1: mode = byte == 0x5B ? 2 : [0x5D, 0x50, 0x5F, 0x5E, 0x58].contains(byte) ? 3 : 0
            case 2: if byte >= 0x40 && byte <= 0x7E { mode = 0 }
            case 3: if byte == 0x07 { mode = 0 } else if byte == 0x1B { mode = 4 }
            default: mode = byte == 0x5C ? 0 : 3
            }
        }
        return out
    }

    func testTheFilterAgreesWithTheRuleOnRandomOutputInRandomPieces() {
        var generator = SystemRandomNumberGenerator()
        let pieces: [[UInt8]] = [
            Array("Hello World ".utf8), Array("\u{1B}[1;31m".utf8), Array("\u{1B}]0;Title\u{07}".utf8),
            Array("\u{1B}P+q\u{1B}\\".utf8), [0x0D, 0x0A], [0x09], [0x7F], [0x1B], [0x1B, 0x28, 0x42],
            Array("ÄÖü é".utf8), Array("PERMISSION denied".utf8), [0x00, 0x07, 0x08], Array("\u{1B}[?25l".utf8),
        ]
        for _ in 0..<200 {
            var output: [UInt8] = []
            for _ in 0..<Int.random(in: 1...60, using: &generator) {
                output += pieces.randomElement(using: &generator)!
                if Bool.random(using: &generator) { output.append(UInt8.random(in: 0...255, using: &generator)) }
            }
            var filter = VisibleText()
            var seen: [UInt8] = []
            var at = 0
            while at < output.count {
                let length = Int.random(in: 1...max(1, output.count - at), using: &generator)
                filter.feed(Array(output[at..<(at + length)]), into: &seen)
                at += length
            }
            XCTAssertEqual(seen, reference(output), "output: \(output)")
        }
    }
}
