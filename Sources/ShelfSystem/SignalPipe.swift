// SignalPipe: signals as bytes on a pipe (the self-pipe trick), for a process whose main loop waits in poll(2) and
// must not wake otherwise. A dispatch signal source would start libdispatch's worker pool, whose monitor wakes the
// process about once a second for ever (measured: docs/SERVICE.md); a sigaction handler that writes one byte costs
// nothing until a signal comes. Whichever thread takes the signal, the byte reaches the loop.
import FoundationEssentials
import Glibc

/// The write end the handler uses (one SignalPipe per process: the service's).
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1

private func signalPipeHandler(_ number: Int32) {
    let saved = errno
    var byte = UInt8(truncatingIfNeeded: number)
    _ = write(signalPipeWriteEnd, &byte, 1)
    errno = saved
}

public final class SignalPipe {
    /// Poll this for POLLIN, then `received()`.
    public let readEnd: Int32
    private let signals: [Int32]

    /// Routes `signals` to the pipe (replacing their disposition until `restore()`); nil when no pipe could be made.
    public init?(_ signals: [Int32]) {
        var fds: [Int32] = [-1, -1]
        guard CloseOnExec.pipe(&fds, nonBlocking: true) == 0 else { return nil }
        readEnd = fds[0]
        signalPipeWriteEnd = fds[1]
        self.signals = signals
        for number in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = signalPipeHandler
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(number, &action, nil)
        }
    }

    /// The signals that came since the last call, in order (each at most 255 a call).
    public func received() -> [Int32] {
        var buffer = [UInt8](repeating: 0, count: 256)
        var numbers: [Int32] = []
        while true {
            let got = read(readEnd, &buffer, buffer.count)
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { break }
            numbers += buffer[..<got].map { Int32($0) }
        }
        return numbers
    }

    /// Puts the default disposition back. The pipe stays open (a late signal's byte has somewhere to go).
    public func restore() {
        for number in signals { signal(number, SIG_DFL) }
    }
}
