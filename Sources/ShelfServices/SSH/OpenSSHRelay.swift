// OpenSSHRelay: a session handed to OpenSSH's ssh that is recorded (docs/SESSIONS.md). Instead of replacing this
// process with ssh, sshelf runs ssh on a terminal it holds (TerminalChild) and relays: the user's keys to it, its
// output to the user's terminal and to the recorder, window changes to it; the user's terminal is in raw mode
// meanwhile (ssh's own terminal does the line editing and echo) and restored on every way out.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfSSH
import ShelfSystem

public enum OpenSSHRelay {
    /// Runs `argv` on a held terminal until it ends; answers its exit status.
    public static func run(_ argv: [String], environment: [String: String], observer: ShellObserver) throws -> Int32 {
        let size = TerminalSize.current(1) ?? TerminalSize.current(0) ?? TerminalSize(rows: 24, columns: 80)
        let child: TerminalChild
        switch TerminalChild.start(
            argv, environment: environment, columns: size.columns, rows: size.rows, modesFrom: 0)
        {
        case .success(let started): child = started
        case .failure(let error): throw ShelfError(.failure, "could not run \(argv[0]): \(error)")
        }
        defer { close(child.master) }
        let signals = SignalPipe([SIGWINCH, SIGTERM, SIGHUP, SIGINT, SIGQUIT])
        defer { signals?.restore() }
        var saved = termios()
        let raw = isatty(0) == 1 && tcgetattr(0, &saved) == 0
        if raw {
            var modes = saved
            cfmakeraw(&modes)
            tcsetattr(0, TCSADRAIN, &modes)
        }
        defer { if raw { tcsetattr(0, TCSADRAIN, &saved) } }
        observer.started(size: size)
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        var inputOpen = true
        loop: while true {
            var fds = [
                pollfd(fd: child.master, events: Int16(POLLIN), revents: 0),
                pollfd(fd: inputOpen ? 0 : -1, events: Int16(POLLIN), revents: 0),
                pollfd(fd: signals?.readEnd ?? -1, events: Int16(POLLIN), revents: 0),
            ]
            if poll(&fds, 3, -1) < 0 {
                if errno == EINTR { continue }
                break
            }
            if fds[0].revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(child.master, $0.baseAddress, $0.count) }
                if count > 0 {
                    buffer.withUnsafeBytes { bytes in
                        let shown = UnsafeRawBufferPointer(rebasing: bytes.prefix(count))
                        StandardStreams.write(shown, fd: 1)
                        observer.output(shown)
                    }
                } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
                    break loop  // EIO: the child and all it started closed the terminal
                }
            }
            if fds[1].revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
                if count > 0 {
                    let typed = Array(buffer.prefix(count))
                    _ = typed.withUnsafeBytes { FileOutput.writeAll(child.master, $0) }
                    observer.input(typed)
                } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
                    inputOpen = false
                }
            }
            if fds[2].revents != 0, let signals {
                for number in signals.received() {
                    if number == SIGWINCH, let now = TerminalSize.current(1) ?? TerminalSize.current(0) {
                        var size = winsize(
                            ws_row: UInt16(clamping: now.rows), ws_col: UInt16(clamping: now.columns), ws_xpixel: 0,
                            ws_ypixel: 0)
                        _ = ioctl(child.master, UInt(TIOCSWINSZ), &size)
                        observer.resized(now)
                    } else if number != SIGWINCH {
                        kill(child.pid, number == SIGINT ? SIGINT : SIGHUP)
                    }
                }
            }
        }
        return ChildProcess.wait(child.pid)
    }
}
