// PlayCommand: `sshelf play ID` — a recording replayed on this terminal in real time (decrypted in memory): with a
// speed, pauses longer than --max-wait cut short, and, on a terminal, keys to pause, change speed, seek and jump
// to the next search hit. A seek back redraws from the start (the screen is the sum of what came before).
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfOperations
import ShelfServices
import ShelfSystem
import ShelfVault

enum PlayCommand {
    static let command = CommandSpec(
        path: ["play"], summary: "replay a recorded session in this terminal",
        details: """
            Keys while it plays (on a terminal): space pauses and resumes, + and - double or halve the speed, \
            the right and left arrows (or . and ,) seek 5 seconds, n jumps to the next --search hit, q stops. \
            The output is the server's, as it was shown: play it in a terminal at least as large as the \
            recording (sessions list shows its size).
            """,
        arguments: [SessionCommands.idArgument],
        options: [
            .value("speed", "X", "play X times as fast (default 1)"),
            .value("max-wait", "SECONDS", "cut pauses longer than this (default 2; 0: keep every pause as it was)"),
            .value("from", "SECONDS", "start this far into the recording"),
            .value("search", "TEXT", "start at the first place TEXT was shown (n jumps to the next)"),
            .flag("hold", "at the end, keep the last screen until a key is pressed (how the TUI's R plays)"),
        ],
        examples: ["sshelf play 3f2a91c0", "sshelf play 3f2a91c0 --speed 4 --search 'error'"], run: play)

    static func play(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let speed = try number(call.value("speed"), option: "speed", default: 1, positive: true)
        let maxWait = try number(call.value("max-wait"), option: "max-wait", default: 2, positive: false)
        let from = try number(call.value("from"), option: "from", default: 0, positive: false)
        let file = try RecordingCatalog.find(call.arguments[0], locations: context.locations)
        let key = try Recordings.key(vault: try SessionCommands.vault(context), for: "play")
        var events: [RecordingEvent] = []
        try Recordings.read(file.path, id: file.id, key: key) { event in
            events.append(event)
            return true
        }
        var hits: [Double] = []
        if let text = call.value("search") {
            hits = try RecordingSearch.hits(of: text, in: file, key: key).map(\.time)
            guard !hits.isEmpty else { throw ShelfError(.notFound, "'\(Display.safe(text))' is not in this recording") }
        }
        var player = Player(events: events, speed: speed, maxWait: maxWait, hits: hits)
        player.run(start: hits.first.map { max(0, $0 - 1) } ?? from, hold: call.flag("hold"))
        return 0
    }

    static func number(_ text: String?, option: String, default value: Double, positive: Bool) throws -> Double {
        guard let text else { return value }
        guard let number = Double(text), number.isFinite, positive ? number > 0 : number >= 0 else {
            throw ShelfError(
                .invalid, "--\(option): '\(Display.safe(text))' is not a \(positive ? "positive " : "")number")
        }
        return number
    }
}

/// Plays events on stdout; reads keys from stdin when it is a terminal.
struct Player {
    let events: [RecordingEvent]
    var speed: Double
    let maxWait: Double
    let hits: [Double]

    /// Seconds of the recording shown so far, and the index of the next event.
    private var position = 0.0
    private var next = 0
    private var paused = false

    init(events: [RecordingEvent], speed: Double, maxWait: Double, hits: [Double]) {
        self.events = events
        self.speed = speed
        self.maxWait = maxWait
        self.hits = hits
    }

    mutating func run(start: Double, hold: Bool = false) {
        let raw = isatty(0) == 1 ? PlayTerminal() : nil
        defer { raw?.restore() }
        seek(to: start)
        defer {
            // The end of the recording (not a q): the last screen stays until a key says it was seen.
            if hold, let raw, next >= events.count {
                write(Array("\r\n[end of the recording: press a key to go back]".utf8))
                _ = raw.key(within: -1)
            }
        }
        while next < events.count {
            let event = events[next]
            var wait = (event.time - position) / speed
            if maxWait > 0 { wait = min(wait, maxWait / speed) }
            if paused || wait > 0.001 {
                if let key = raw?.key(within: paused ? -1 : wait) {
                    if !handle(key) { return }
                    continue
                }
                if raw == nil && wait > 0 { sleepSeconds(wait) }
            }
            show(event)
            position = max(position, event.time)
            next += 1
        }
    }

    /// Answers false to stop.
    private mutating func handle(_ key: UInt8) -> Bool {
        switch key {
        case UInt8(ascii: "q"), 0x03: return false
        case UInt8(ascii: " "): paused.toggle()
        case UInt8(ascii: "+"), UInt8(ascii: "="): speed = min(speed * 2, 64)
        case UInt8(ascii: "-"): speed = max(speed / 2, 1.0 / 16)
        case UInt8(ascii: "."), UInt8(ascii: "C"): seek(to: position + 5)
        case UInt8(ascii: ","), UInt8(ascii: "D"): seek(to: max(0, position - 5))
        case UInt8(ascii: "n"):
            if let hit = hits.first(where: { $0 > position + 1 }) { seek(to: max(0, hit - 1)) }
        default: break
        }
        return true
    }

    /// Redraws the screen as it was at `time`: a reset, then every output before it at once.
    private mutating func seek(to time: Double) {
        write(Array("\u{1B}c".utf8))
        next = 0
        position = 0
        while next < events.count, events[next].time <= time {
            show(events[next])
            next += 1
        }
        position = time
    }

    private func show(_ event: RecordingEvent) {
        if case .output(_, let bytes) = event { write(bytes) }
    }

    private func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let count = Glibc.write(1, buffer.baseAddress! + offset, buffer.count - offset)
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

/// stdin in raw mode while a recording plays (keys arrive one by one, not echoed); restored at the end.
final class PlayTerminal {
    private var saved = termios()
    private var active = false

    init() {
        guard tcgetattr(0, &saved) == 0 else { return }
        var raw = saved
        cfmakeraw(&raw)
        raw.c_oflag = saved.c_oflag  // output as the terminal had it: the recording's own CR LF
        active = tcsetattr(0, TCSANOW, &raw) == 0
    }

    /// A key typed within `seconds` (forever when negative), or nil.
    func key(within seconds: Double) -> UInt8? {
        var pfd = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
        let timeout = seconds < 0 ? -1 : Int32(min(seconds * 1000, 86_400_000).rounded(.up))
        guard poll(&pfd, 1, timeout) > 0 else { return nil }
        var byte: UInt8 = 0
        guard read(0, &byte, 1) == 1 else { return nil }
        return byte
    }

    func restore() {
        if active { tcsetattr(0, TCSANOW, &saved) }
        active = false
    }
}
