// OpenSSHLogEcho: while a session handed to OpenSSH runs with its log in a file (OpenSSHSessionLog), ssh's own words
// in it — an error, a warning, keyboard-interactive's instruction before its prompt, "Permission denied, please try
// again." — reach standard error as ssh writes them, as they would without the log; its debug lines do not. A thread
// follows the file (inotify: it wakes only when ssh writes) until `finish`, which takes what is left.
import FoundationEssentials
import Glibc
import ShelfSystem

final class OpenSSHLogEcho {
    private let file: Int32
    private let notify: Int32
    private var stopPipe: [Int32] = [-1, -1]
    private var thread: JoinableThread?
    private var partial: [UInt8] = []
    /// Told the key exchange of the first `debug1: kex: algorithm:` line once, as ssh writes it (`connect -v`).
    private var keyExchange: ((String) -> Void)?

    /// Follows the log at `path` (nil when it cannot be opened or watched: its words are then said at the end).
    init?(path: String, keyExchange: ((String) -> Void)? = nil) {
        self.keyExchange = keyExchange
        file = open(path, O_RDONLY | O_CLOEXEC)
        notify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard file >= 0, notify >= 0, inotify_add_watch(notify, path, UInt32(IN_MODIFY)) >= 0,
            CloseOnExec.pipe(&stopPipe) == 0
        else {
            if file >= 0 { close(file) }
            if notify >= 0 { close(notify) }
            return nil
        }
        thread = JoinableThread(runInlineIfNoThread: false) { [self] in follow() }
    }

    /// Stops following once everything ssh wrote has been read and said.
    func finish() {
        var byte: UInt8 = 1
        _ = write(stopPipe[1], &byte, 1)
        thread?.join()
        thread = nil
        readNew()
        for fd in [file, notify] + stopPipe { close(fd) }
    }

    private func follow() {
        var fds = [
            pollfd(fd: notify, events: Int16(POLLIN), revents: 0),
            pollfd(fd: stopPipe[0], events: Int16(POLLIN), revents: 0),
        ]
        var events = [UInt8](repeating: 0, count: 4096)
        while true {
            fds[0].revents = 0
            fds[1].revents = 0
            if poll(&fds, 2, -1) < 0 {
                if errno == EINTR { continue }
                return
            }
            if fds[1].revents != 0 { return }
            while read(notify, &events, events.count) > 0 {}
            readNew()
        }
    }

    /// Reads what ssh added to the file since the last call and says its complete lines that are ssh's words.
    private func readNew() {
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let got = read(file, &buffer, buffer.count)
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { break }
            partial += buffer[..<got]
        }
        var said: [UInt8] = []
        while let end = partial.firstIndex(of: UInt8(ascii: "\n")) {
            var line = Array(partial[..<end])
            partial.removeSubrange(...end)
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            let text = String(decoding: line, as: UTF8.self)
            // "\r\n": the terminal may be in ssh's raw mode (no output processing), as ssh itself ends the line.
            if OpenSSHSessionLog.isSaid(text) { said += line + [13, 10] }
            if let told = keyExchange, let name = OpenSSHSessionLog.keyExchange(in: text) {
                keyExchange = nil
                said.withUnsafeBytes { StandardStreams.write($0, fd: 2) }
                said = []
                told(name)
            }
        }
        // A line longer than anything ssh says is not kept whole.
        if partial.count > 8192 { partial.removeAll() }
        said.withUnsafeBytes { StandardStreams.write($0, fd: 2) }
    }
}
