// AgentConfirmation: who answers "allow this signature?" for a key that needs confirming — the terminal of a
// foreground agent, else a running sshelf TUI (through its confirm socket), else nobody, which refuses. Every
// question has a deadline (30 s unless --confirm-timeout); silence refuses. Questions are asked one at a time.
import FoundationEssentials
import ShelfCore
import ShelfOperations

#if canImport(Glibc)
import Glibc
#endif

public final class AgentConfirmation: @unchecked Sendable {
    enum Answer: Equatable {
        case allowed(by: String)
        case refused(String)
    }

    public static let defaultTimeout = 30

    private let locations: DataLocations
    private let timeout: Duration
    private let useTerminal: Bool
    /// One question on the terminal (or the TUI) at a time; the others wait within their own deadline.
    private let turn = Lock()

    public init(locations: DataLocations, timeoutSeconds: Int, useTerminal: Bool) {
        self.locations = locations
        timeout = .seconds(timeoutSeconds)
        self.useTerminal = useTerminal
    }

    var timeoutSeconds: Int { Int(timeout.components.seconds) }

    /// Where answers come from right now, for `agent status`.
    var channel: String {
        if useTerminal { return "the agent's terminal" }
        return FileManager.default.fileExists(atPath: ConfirmChannel.path(locations))
            ? "the sshelf TUI" : "nobody (refused)"
    }

    func ask(_ question: String) -> Answer {
        let deadline = ContinuousClock.now + timeout
        guard turn.lock(within: timeout) else {
            return .refused("not confirmed within \(timeoutSeconds) s (another confirmation was open)")
        }
        defer { turn.unlock() }
        if useTerminal { return askTerminal(question, deadline: deadline) }
        switch ConfirmChannel.ask(question, locations: locations, deadline: deadline) {
        case .some(true): return .allowed(by: "the sshelf TUI")
        case .some(false): return .refused("refused in the sshelf TUI (or not answered within \(timeoutSeconds) s)")
        case .none: return .refused("nobody can confirm: the agent runs in the background and no sshelf TUI is open")
        }
    }

    /// `question [y/N]` on /dev/tty; any answer but y/yes, or silence until the deadline, refuses.
    private func askTerminal(_ question: String, deadline: ContinuousClock.Instant) -> Answer {
        let tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard tty >= 0 else { return .refused("nobody can confirm: the agent has no terminal") }
        defer { close(tty) }
        tcflush(tty, TCIFLUSH)  // a key pressed before the question must not answer it
        say(tty, "\n" + Display.safe(question) + " [y/N] ")
        var line: [UInt8] = []
        while true {
            let milliseconds = ConfirmChannel.milliseconds(until: deadline)
            guard milliseconds > 0 else {
                say(tty, "\n(no answer within \(timeoutSeconds) s: refused)\n")
                return .refused("not confirmed within \(timeoutSeconds) s")
            }
            var poller = pollfd(fd: tty, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            var byte: UInt8 = 0
            let got = read(tty, &byte, 1)
            if got < 0 && errno == EINTR { continue }
            guard got == 1 else { return .refused("the agent's terminal closed") }
            if byte == 0x0a || byte == 0x0d { break }
            if line.count < 16 { line.append(byte) }
        }
        let answer = String(decoding: line, as: UTF8.self).trimmingSpaces().lowercased()
        return answer == "y" || answer == "yes"
            ? .allowed(by: "the agent's terminal") : .refused("answered no on the agent's terminal")
    }

    private func say(_ fd: Int32, _ text: String) {
        _ = text.withCString { write(fd, $0, strlen($0)) }
    }
}

/// The TUI's confirm socket: the agent sends `u32 length, question (UTF-8)`, the TUI answers one byte, `y` or `n`.
/// The TUI binds it (0600, in a 0700 folder); both sides check the other is this user.
public enum ConfirmChannel {
    public static let maximumQuestion = 4096

    public static func directory(_ locations: DataLocations) -> String { locations.runtimeDirectory + "/tui" }

    /// What is left until `deadline`, for poll(2).
    static func milliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
        let left = deadline - ContinuousClock.now
        return Int32(
            clamping: max(0, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
    }
    public static func path(_ locations: DataLocations) -> String { directory(locations) + "/confirm.sock" }

    /// The length's top bit marks a request to unlock the vault (the bridge's unlock guard): the TUI asks for the
    /// passphrase in its own dialog, hands it to the agent (its tries and back-off) and answers `y` once the vault
    /// is open. A TUI from before this refuses the length and closes, which the guard takes as no TUI.
    public static let unlockFlag: UInt32 = 0x8000_0000

    /// Asks a running TUI; nil when none listens. Silence until the deadline counts as no.
    static func ask(_ question: String, locations: DataLocations, deadline: ContinuousClock.Instant) -> Bool? {
        ask(question, unlock: false, locations: locations, deadline: deadline)
    }

    /// Asks a running TUI to unlock the vault, `question` saying for whom; nil when none listens.
    public static func askUnlock(_ question: String, locations: DataLocations, deadline: ContinuousClock.Instant)
        -> Bool?
    {
        ask(question, unlock: true, locations: locations, deadline: deadline)
    }

    static func ask(_ question: String, unlock: Bool, locations: DataLocations, deadline: ContinuousClock.Instant)
        -> Bool?
    {
        guard let fd = PrivateSocket.connect(path(locations)) else { return nil }
        defer { close(fd) }
        let text = Array(question.utf8.prefix(maximumQuestion))
        let frame = SSHWire.uint32(UInt32(text.count) | (unlock ? unlockFlag : 0)) + text
        let sent = frame.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == frame.count else { return nil }
        while true {
            let milliseconds = milliseconds(until: deadline)
            guard milliseconds > 0 else { return false }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return false }
            var byte: UInt8 = 0
            let got = recv(fd, &byte, 1, 0)
            if got < 0 && errno == EINTR { continue }
            return got == 1 && byte == UInt8(ascii: "y")
        }
    }
}
