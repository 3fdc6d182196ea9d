// InteractiveShell: `sshelf connect` — the local terminal in raw mode, a remote PTY with $TERM and the current
// size, window changes forwarded, the OpenSSH escapes (`~.` to disconnect, `~?`) and sshelf's `~s` (a snippet typed
// into the session), and the terminal restored on every exit path (remote exit, error, escape, SIGTERM/SIGHUP).
import CLibSSH2
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfSystem

public struct ShellOptions: Sendable {
    public var term: String
    public var input: Int32
    public var output: Int32
    /// Where the remote stderr goes: with a PTY it arrives mixed into stdout anyway; without one, apart (fd 2).
    public var errors: Int32?
    /// `~.` after a newline disconnects, `~~` sends one `~` (as in OpenSSH).
    public var escapeEnabled: Bool
    /// Ask for a PTY (and put the local terminal in raw mode); off for a host whose options say `RequestTTY no`.
    public var requestTerminal = true
    /// `~s`: asks for a snippet on the local terminal (input, output) and gives the bytes to type into the session
    /// (nil: no `~s`). The session waits meanwhile: the remote's output is read again once it returns.
    public var snippetPicker: (@Sendable (_ input: Int32, _ output: Int32) -> [UInt8])?
    /// Told of every byte shown and sent and of size changes (a session recording; docs/SESSIONS.md).
    public var observer: ShellObserver?

    public init(term: String, input: Int32 = 0, output: Int32 = 1, escapeEnabled: Bool = true) {
        self.term = term.isEmpty ? "xterm" : term
        self.input = input
        self.output = output
        self.escapeEnabled = escapeEnabled
    }
}

extension SSHConnection {
    /// Runs a login shell on the target with a PTY, pumping the local terminal until the shell exits, the user
    /// types `~.`, or a terminating signal arrives.
    public func runShell(_ options: ShellOptions) throws(SSHError) -> RemoteExit {
        let session = target
        session.setBlocking(true)
        let channel = try session.openSessionChannel()
        sendEnvironment(channel)
        let terminal = options.requestTerminal && targetSettings.requestTTY != .no
        let size =
            TerminalSize.current(options.output) ?? TerminalSize.current(options.input)
            ?? TerminalSize(rows: 24, columns: 80)
        let modes = ""
        if terminal {
            guard
                libssh2_channel_request_pty_ex(
                    channel.raw, options.term, UInt32(options.term.utf8.count), modes, 0,
                    Int32(size.columns), Int32(size.rows), 0, 0) == 0
            else { throw SSHError(.channelFailed, "the server refused a terminal (PTY)", library: session.lastError()) }
        }
        let request = "shell"
        guard libssh2_channel_process_startup(channel.raw, request, UInt32(request.utf8.count), nil, 0) == 0 else {
            throw SSHError(.channelFailed, "the server refused to start a shell", library: session.lastError())
        }
        let raw = terminal ? RawTerminal(options.input) : nil
        let signals = try ShellSignals()
        defer {
            signals.restore()
            raw?.restore()
        }
        session.setBlocking(false)
        defer { session.setBlocking(true) }
        var escape = EscapeFilter(enabled: options.escapeEnabled)
        let observer = options.observer
        observer?.started(size: size)
        var stoppedLocally = false
        var pump = ChannelPump(
            session: session, channel: channel, input: options.input,
            liveness: Liveness(targetSettings, host: targetName))
        pump.wakeFD = signals.readFD
        try pump.run(
            stdout: {
                FileOutput.writeAll(options.output, $0)
                observer?.output($0)
            },
            stderr: {
                FileOutput.writeAll(options.errors ?? options.output, $0)
                observer?.output($0)
            },
            filterInput: { bytes in
                let (forward, disconnect) = escape.filter(bytes) { key in
                    switch key {
                    case UInt8(ascii: "s"):
                        return options.snippetPicker?(options.input, options.output)
                    case UInt8(ascii: "?"):
                        let help = EscapeFilter.help(snippets: options.snippetPicker != nil)
                        _ = help.withUnsafeBytes { FileOutput.writeAll(options.output, $0) }
                        return []
                    default: return nil
                    }
                }
                if !forward.isEmpty { observer?.input(forward) }
                if disconnect { stoppedLocally = true }
                return (forward, !disconnect)
            },
            onWake: {
                for signal in signals.drain() {
                    if signal == SIGWINCH {
                        if let size = TerminalSize.current(options.output) ?? TerminalSize.current(options.input) {
                            observer?.resized(size)
                            _ = channel.retry {
                                libssh2_channel_request_pty_size_ex(
                                    channel.raw, Int32(size.columns), Int32(size.rows), 0, 0)
                            }
                        }
                    } else {
                        stoppedLocally = true
                        return false
                    }
                }
                return true
            })
        session.setBlocking(true)
        if stoppedLocally {
            session.setTimeout(seconds: 2)
            channel.close()
            return .disconnected
        }
        channel.close()
        return channel.exit()
    }
}

public struct TerminalSize: Sendable, Equatable {
    public var rows: Int
    public var columns: Int

    public init(rows: Int, columns: Int) {
        self.rows = rows
        self.columns = columns
    }

    public static func current(_ fd: Int32) -> TerminalSize? {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0, size.ws_col > 0 else { return nil }
        return TerminalSize(rows: Int(size.ws_row), columns: Int(size.ws_col))
    }
}

/// OpenSSH's escape: recognised only right after a newline (or at the start).
struct EscapeFilter {
    let enabled: Bool
    var atLineStart = true
    var pendingTilde = false

    /// What `~?` prints (the local terminal is raw: lines end in CR LF).
    static func help(snippets: Bool) -> [UInt8] {
        let lines =
            ["Supported escape sequences:", " ~.   - terminate connection"]
            + (snippets ? [" ~s   - pick a snippet and type it into the session"] : [])
            + [
                " ~?   - this message", " ~~   - send the escape character", "",
                "(Escapes are only recognized "
                    + "immediately after a newline.)",
            ]
        return Array(("\r\n" + lines.joined(separator: "\r\n") + "\r\n").utf8)
    }

    /// Returns the bytes to send and whether the user asked to disconnect. `escape` answers another key after `~`:
    /// the bytes it gives are sent in the escape's place (nil: not an escape, the `~` and the key go as typed).
    mutating func filter(_ bytes: ArraySlice<UInt8>, escape: (UInt8) -> [UInt8]? = { _ in nil }) -> ([UInt8], Bool) {
        guard enabled else { return (Array(bytes), false) }
        var out: [UInt8] = []
        for byte in bytes {
            if pendingTilde {
                pendingTilde = false
                if byte == UInt8(ascii: ".") { return (out, true) }
                if let typed = escape(byte) {
                    out += typed
                    atLineStart = typed.last.map { $0 == 0x0D || $0 == 0x0A } ?? true
                    continue
                }
                if byte != UInt8(ascii: "~") { out.append(UInt8(ascii: "~")) }
                out.append(byte)
            } else if atLineStart && byte == UInt8(ascii: "~") {
                pendingTilde = true
                continue
            } else {
                out.append(byte)
            }
            atLineStart = byte == 0x0D || byte == 0x0A
        }
        return (out, false)
    }
}

/// The local terminal in raw mode; `restore()` puts back exactly what was there (idempotent).
final class RawTerminal {
    private let fd: Int32
    private var saved: termios?

    init(_ fd: Int32) {
        self.fd = fd
        guard isatty(fd) != 0 else { return }
        var original = termios()
        guard tcgetattr(fd, &original) == 0 else { return }
        saved = original
        var raw = original
        cfmakeraw(&raw)
        _ = tcsetattr(fd, TCSADRAIN, &raw)
    }

    func restore() {
        guard var original = saved else { return }
        _ = tcsetattr(fd, TCSADRAIN, &original)
        saved = nil
    }

    deinit { restore() }
}

/// SIGWINCH, SIGTERM, SIGHUP and SIGQUIT (or the signals named) delivered through a self-pipe the poll loop watches;
/// previous handlers come back on `restore()`.
final class ShellSignals {
    static let watched: [Int32] = [SIGWINCH, SIGTERM, SIGHUP, SIGQUIT]
    let readFD: Int32
    private let writeFD: Int32
    private var previous: [Int32: sigaction] = [:]

    /// `watched`: the signals caught (exec catches only SIGINT, to pass it on).
    init(_ watched: [Int32] = ShellSignals.watched) throws(SSHError) {
        var fds: [Int32] = [-1, -1]
        guard CloseOnExec.pipe(&fds, nonBlocking: true) == 0 else {
            throw SSHError(.channelFailed, "could not set up signal handling")
        }
        readFD = fds[0]
        writeFD = fds[1]
        shellSignalPipe = writeFD
        for signal in watched {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = shellSignalHandler
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            var old = sigaction()
            sigaction(signal, &action, &old)
            previous[signal] = old
        }
    }

    func drain() -> [Int32] {
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = read(readFD, &bytes, bytes.count)
        return count > 0 ? bytes[0..<count].map { Int32($0) } : []
    }

    func restore() {
        for (signal, old) in previous {
            var action = old
            sigaction(signal, &action, nil)
        }
        previous = [:]
        shellSignalPipe = -1
        close(readFD)
        close(writeFD)
    }
}

nonisolated(unsafe) private var shellSignalPipe: Int32 = -1

private let shellSignalHandler: @convention(c) (Int32) -> Void = { signal in
    var byte = UInt8(truncatingIfNeeded: signal)
    let saved = errno
    _ = write(shellSignalPipe, &byte, 1)
    errno = saved
}
