// RecordingSearch: finding text in what recordings showed (`sessions search`, `play --search`), decrypted in
// memory one chunk at a time — nothing is written. The output is read as a terminal would show its text: escape
// sequences and control bytes are left out, a line break is a space, letters are compared without case.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfVault

public struct RecordingHit: Sendable, Encodable {
    public var id: UUID
    public var host: String
    /// Seconds from the start of the recording to the output that completed the match.
    public var time: Double
    /// The text around the match, as shown (safe to print).
    public var context: String
}

/// The visible text of an output stream, fed in pieces: CSI, OSC, DCS and other escape sequences dropped, controls
/// dropped (a line break kept as a space), ASCII letters lowered. One pass a byte at a time through raw memory, written
/// in place: the filter keeps at most one byte per byte read, so the room is made once per piece and cut after. (Runs
/// of text appended and lowered one by one cost the search three quarters of its time: docs/PERFORMANCE.md, "Session
/// recordings".)
struct VisibleText {
    private enum Mode { case text, escape, csi, string, stringEscape }
    private var mode = Mode.text

    mutating func feed(_ bytes: [UInt8], into out: inout [UInt8]) {
        bytes.withUnsafeBytes { feed($0, into: &out) }
    }

    mutating func feed(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        let count = bytes.count
        guard count > 0, let source = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        let start = out.count
        out.append(contentsOf: repeatElement(0, count: count))
        var written = start
        var mode = self.mode
        out.withUnsafeMutableBufferPointer { buffer in
            guard let to = buffer.baseAddress else { return }
            var at = 0
            while at < count {
                if mode == .text {
                    // The common case, a run of text, without going back to the switch for each byte.
                    while at < count {
                        let byte = source[at]
                        at &+= 1
                        if byte >= 0x20 && byte != 0x7F {
                            to[written] = byte &- 0x41 < 26 ? byte | 0x20 : byte
                            written &+= 1
                        } else if byte == 0x1B {
                            mode = .escape
                            break
                        } else if byte == 0x0A || byte == 0x0D || byte == 0x09,
                            written == 0 || to[written &- 1] != 0x20
                        {
                            to[written] = 0x20
                            written &+= 1
                        }
                    }
                    continue
                }
                let byte = source[at]
                at &+= 1
                switch mode {
                case .text: break
                case .escape:
                    switch byte {
                    case 0x5B: mode = .csi  // [
                    case 0x5D, 0x50, 0x5F, 0x5E, 0x58: mode = .string  // ] P _ ^ X: ended by BEL or ESC \
                    default: mode = .text
                    }
                case .csi: if byte >= 0x40 && byte <= 0x7E { mode = .text }
                case .string: if byte == 0x07 { mode = .text } else if byte == 0x1B { mode = .stringEscape }
                case .stringEscape: mode = byte == 0x5C ? .text : .string
                }
            }
        }
        self.mode = mode
        out.removeLast(out.count - written)
    }
}

public enum RecordingSearch {
    /// Every place `text` shows in the recording at `path`, in order; `limit` stops after that many. Each chunk is
    /// read where it was opened (Recordings.scan): only its visible text is copied, into a window that keeps the
    /// needle's length and some context back.
    public static func hits(
        of text: String, in file: (id: UUID, path: String), key: RecordingsKey, limit: Int = 1000
    ) throws -> [RecordingHit] {
        let needle = Array(text.lowercased().utf8)
        guard !needle.isEmpty else { return [] }
        var host = "?"
        var visible = VisibleText()
        // What was seen so far, kept short: the needle's length back plus some context.
        var window: [UInt8] = []
        var searched = 0  // bytes of `window` already searched as match starts
        var hits: [RecordingHit] = []
        let keep = max(needle.count + 60, 200)
        try Recordings.scan(file.path, id: file.id, key: key) { kind, time, payload in
            switch kind {
            case 0x4D: host = RecordingFormat.info(payload)?.host ?? host
            case 0x6F:
                visible.feed(payload, into: &window)
                var start = searched
                while let found = firstMatch(of: needle, in: window, from: start) {
                    let from = max(0, found - 30)
                    let to = min(window.count, found + needle.count + 30)
                    hits.append(
                        RecordingHit(
                            id: file.id, host: host, time: time, context: HostOutputText.clean(Array(window[from..<to]))
                        ))
                    if hits.count >= limit { return false }
                    start = found + needle.count
                }
                searched = max(start, window.count - needle.count + 1)
                if window.count > keep * 4 {
                    let drop = window.count - keep
                    window.removeFirst(drop)
                    searched = max(0, searched - drop)
                }
            default: break
            }
            return true
        }
        return hits
    }

    /// Where `needle` first starts in `haystack` at or after `from` (memchr for its first byte, a look at its last,
    /// then memcmp).
    static func firstMatch(of needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard from >= 0, haystack.count - from >= needle.count else { return nil }
        return haystack.withUnsafeBufferPointer { hay -> Int? in
            needle.withUnsafeBufferPointer { want -> Int? in
                guard let base = hay.baseAddress, let first = want.first, let wanted = want.baseAddress else {
                    return nil
                }
                var at = from
                let last = hay.count - want.count
                while at <= last {
                    guard let hit = memchr(base + at, Int32(first), last - at + 1) else { return nil }
                    let index = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                    // The last byte first: most places that start alike end otherwise, and need no call.
                    if base[index + want.count - 1] == wanted[want.count - 1],
                        memcmp(base + index, wanted, want.count) == 0
                    {
                        return index
                    }
                    at = index + 1
                }
                return nil
            }
        }
    }
}
