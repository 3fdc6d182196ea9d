// RecordingPlayer: `play`'s replay — a recording's events pulled one at a time from a RecordingReader (one chunk
// decrypted at a time, so memory stays bounded whatever the length) and written to stdout at their times, with the
// keys a terminal gives: pause, speed, seek, a text to find (`/`) and the next hit. A seek forward writes what comes
// before the target at once; a seek back resets the terminal and reads the recording again from the start (the
// screen is the sum of what came before). The terminal's title says where the replay is, so the state is visible
// without drawing over the recorded screen.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfOperations

struct RecordingPlayer {
    let open: () throws -> RecordingReader
    /// The times where a text typed after `/` was shown.
    let search: (String) -> [Double]
    /// The recording's short id, for the title.
    let label: String
    var speed: Double
    let maxWait: Double
    var hits: [Double]

    private var reader: RecordingReader?
    private var upcoming: RecordingEvent?
    /// Seconds of the recording shown so far.
    private var position = 0.0
    private var paused = false
    private var raw: PlayTerminal?
    /// The last text typed after `/`, and what the title says besides the state (a search's result).
    private var note = ""
    private var titleSecond = -1

    init(
        open: @escaping () throws -> RecordingReader, search: @escaping (String) -> [Double], label: String,
        speed: Double, maxWait: Double, hits: [Double]
    ) {
        self.open = open
        self.search = search
        self.label = label
        self.speed = speed
        self.maxWait = maxWait
        self.hits = hits
    }

    /// Plays from `start` to the end or a `q`; answers how the file ended (nil: stopped by a key).
    mutating func run(start: Double, paused startPaused: Bool = false, hold: Bool = false) throws -> RecordingState? {
        raw = isatty(0) == 1 ? PlayTerminal() : nil
        defer { raw?.restore() }
        if raw != nil { write(Array("\u{1B}[22;0t".utf8)) }  // keep the terminal's title, given back at the end
        defer { if raw != nil { write(Array("\u{1B}[23;0t".utf8)) } }
        paused = startPaused
        try seek(to: start)
        while true {
            guard let event = upcoming else {
                // Paused at the end (a seek past it): keys still work, a seek back plays on.
                guard paused, let raw, let key = raw.key(within: -1) else { break }
                if !(try handle(key)) { return nil }
                continue
            }
            var wait = (event.time - position) / speed
            if maxWait > 0 { wait = min(wait, maxWait / speed) }
            if paused || wait > 0.001 {
                if let raw, let key = raw.key(within: paused ? -1 : wait) {
                    if !(try handle(key)) { return nil }
                    continue
                }
                if raw == nil && wait > 0 { sleepSeconds(wait) }
            }
            show(event)
            position = max(position, event.time)
            upcoming = reader?.next()
            if Int(position) != titleSecond { title() }
        }
        // The end of the recording (not a q): with `hold`, the last screen stays until a key says it was seen.
        if hold, let raw {
            write(Array("\r\n[end of the recording: press a key to go back]".utf8))
            _ = raw.key(within: -1)
        }
        return reader?.ended
    }

    /// Answers false to stop.
    private mutating func handle(_ key: UInt8) throws -> Bool {
        switch key {
        case UInt8(ascii: "q"), 0x03: return false
        case UInt8(ascii: " "): paused.toggle()
        case UInt8(ascii: "+"), UInt8(ascii: "="): speed = min(speed * 2, 64)
        case UInt8(ascii: "-"): speed = max(speed / 2, 1.0 / 16)
        case UInt8(ascii: "."), UInt8(ascii: "C"): try seek(to: position + 5)
        case UInt8(ascii: ","), UInt8(ascii: "D"): try seek(to: max(0, position - 5))
        case UInt8(ascii: "/"):
            guard let text = askText(), !text.isEmpty else { break }
            hits = search(text)
            if let hit = hits.first(where: { $0 > position + 1 }) ?? hits.first {
                note = "'\(text)': \(hits.count) hit\(hits.count == 1 ? "" : "s"), n for the next"
                try seek(to: max(0, hit - 1))
            } else {
                note = "'\(text)' is not in this recording"
            }
        case UInt8(ascii: "n"):
            if let hit = hits.first(where: { $0 > position + 1 }) { try seek(to: max(0, hit - 1)) }
        default: break
        }
        title()
        return true
    }

    /// The text typed after `/`, shown in the title as it is typed: Enter takes it, Esc or Ctrl-C drops it.
    private mutating func askText() -> String? {
        var typed: [UInt8] = []
        while let raw {
            title(asking: String(decoding: typed, as: UTF8.self))
            guard let byte = raw.key(within: -1) else { return nil }
            switch byte {
            case 0x0D, 0x0A: return String(decoding: typed, as: UTF8.self)
            case 0x1B, 0x03: return nil
            case 0x7F, 0x08: if !typed.isEmpty { typed.removeLast() }
            case 0x15: typed = []
            default: if byte >= 0x20 && typed.count < 256 { typed.append(byte) }
            }
        }
        return nil
    }

    /// Shows the recording as it was at `time`: forward, what comes before it at once; back, from the start.
    private mutating func seek(to time: Double) throws {
        if reader == nil || time < position {
            write(Array("\u{1B}c".utf8))
            let reopened = try open()
            reader = reopened
            upcoming = reopened.next()
            position = 0
        }
        while let event = upcoming, event.time <= time {
            show(event)
            upcoming = reader?.next()
        }
        position = time
        title()
    }

    /// The terminal's title: the recording, where it is, the speed, paused or not (and a search's note).
    private mutating func title(asking: String? = nil) {
        guard raw != nil else { return }
        titleSecond = Int(position)
        let at = "+" + TextFormat.fixed(position, places: 1) + "s"
        let pace = speed >= 1 ? "x\(Int(speed))" : "x1/\(Int((1 / speed).rounded()))"
        var text = "sshelf play \(label) \(at) \(pace)\(paused ? " paused" : "")"
        if let asking { text += " search: \(asking)_" } else if !note.isEmpty { text += " \(note)" }
        // Only printable ASCII in the title: nothing the recording holds can end the sequence early.
        let safe = text.utf8.map { $0 >= 0x20 && $0 < 0x7F ? $0 : UInt8(ascii: "?") }
        write(Array("\u{1B}]2;".utf8) + safe + [0x07])
    }

    private func show(_ event: RecordingEvent) {
        if case .output(_, let bytes) = event { write(bytes) }
    }

    private func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let count = Glibc.write(1, base + offset, buffer.count - offset)
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { return }
                offset += count
            }
        }
    }

    private func sleepSeconds(_ seconds: Double) {
        var time = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1e9))
        var left = timespec()
        while nanosleep(&time, &left) != 0 && errno == EINTR { time = left }
    }
}
