// PlayCommand: `sshelf play ID` — a recording replayed on this terminal in real time (RecordingPlayer: decrypted in
// memory one chunk at a time): with a speed, pauses longer than --max-wait cut short, and, on a terminal, keys to
// pause, change speed, seek and jump to a search hit.
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
            the right and left arrows (or . and ,) seek 5 seconds, / asks for a text and jumps to where it was \
            shown, n jumps to the next hit (of / or --search), q stops. The terminal's title says where the \
            replay is, its speed and whether it is paused. The recording is read one chunk at a time, so a long \
            one replays in little memory. \
            The output is the server's, as it was shown: play it in a terminal at least as large as the \
            recording (sessions list shows its size).
            """,
        arguments: [SessionCommands.idArgument],
        options: Options.self,
        examples: ["sshelf play 3f2a91c0", "sshelf play 3f2a91c0 --speed 4 --search 'error'"], run: play)

    struct Options: CommandOptions {
        let speed = Option(
            "speed", .number(positive: true, placeholder: "X", examples: ["2", "0.5"]),
            "play X times as fast (default 1)")
        let maxWait = Option(
            "max-wait", .number(positive: false, placeholder: "SECONDS", examples: ["1", "0"]),
            "cut pauses longer than this (default 2; 0: keep every pause as it was)")
        let from = Option(
            "from", .number(positive: false, placeholder: "SECONDS", examples: ["90"]),
            "start this far into the recording")
        let search = Option(
            "search", .text("TEXT"), "start at the first place TEXT was shown (n jumps to the next)")
        let paused = Flag("paused", "start paused (at --from or the first --search hit): space plays")
        let hold = Flag("hold", "at the end, keep the last screen until a key is pressed (how the TUI's R plays)")
    }

    static func play(_ call: Call<Options>, _ context: AppContext) throws -> Int32 {
        let speed = call[\.speed] ?? 1, maxWait = call[\.maxWait] ?? 2, from = call[\.from] ?? 0
        let file = try RecordingCatalog.find(call.arguments[0], locations: context.locations)
        let key = try Recordings.key(vault: try SessionCommands.vault(context), for: "play")
        var hits: [Double] = []
        if let text = call[\.search] {
            hits = try RecordingSearch.hits(of: text, in: file, key: key).map(\.time)
            guard !hits.isEmpty else { throw ShelfError(.notFound, "'\(Display.safe(text))' is not in this recording") }
        }
        var player = RecordingPlayer(
            open: { try RecordingReader(path: file.path, id: file.id, key: key) },
            search: { text in (try? RecordingSearch.hits(of: text, in: file, key: key).map(\.time)) ?? [] },
            label: Recordings.shortID(file.id), speed: speed, maxWait: maxWait, hits: hits)
        let ended = try player.run(
            start: hits.first.map { max(0, $0 - 1) } ?? from, paused: call[\.paused], hold: call[\.hold])
        if case .damaged(let why) = ended {
            throw ShelfError(.invalid, "the recording is damaged (\(why)): it played up to there")
        }
        return 0
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
