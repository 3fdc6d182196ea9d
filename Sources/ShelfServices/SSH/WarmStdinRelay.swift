// WarmStdinRelay: a warm caller's stdin for its command — the descriptor the caller lent (SCM_RIGHTS) copied into a
// pipe the keeper's loop reads, closed when the input ends or the caller leaves.
import FoundationEssentials
import Glibc
import ShelfSystem

/// The caller's stdin as the command sees it: a relay thread copies the lent descriptor into a pipe and closes the
/// pipe when the input ends or the caller goes away (Ctrl-C), so the command gets EOF at once and the keeper never
/// keeps reading the caller's terminal or pipe after it left.
final class StdinRelay {
    /// What the keeper's loop reads (made non-blocking by WarmCall).
    let output: Int32
    private let stop: [Int32]
    private var thread: JoinableThread?

    init?(client: Int32, input: Int32) {
        var data: [Int32] = [-1, -1], wake: [Int32] = [-1, -1]
        guard CloseOnExec.pipe(&data) == 0 else { return nil }
        guard CloseOnExec.pipe(&wake) == 0 else {
            close(data[0])
            close(data[1])
            return nil
        }
        _ = fcntl(data[1], F_SETFL, fcntl(data[1], F_GETFL) | O_NONBLOCK)
        output = data[0]
        stop = wake
        let writeEnd = data[1], stopRead = wake[0]
        thread = JoinableThread(runInlineIfNoThread: false) {
            StdinRelay.relay(from: input, to: writeEnd, client: client, stop: stopRead)
        }
    }

    private static func relay(from input: Int32, to writeEnd: Int32, client: Int32, stop: Int32) {
        defer { close(writeEnd) }
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            var fds = [
                pollfd(fd: client, events: Int16(POLLIN), revents: 0),
                pollfd(fd: stop, events: Int16(POLLIN), revents: 0),
                pending.isEmpty
                    ? pollfd(fd: input, events: Int16(POLLIN), revents: 0)
                    : pollfd(fd: writeEnd, events: Int16(POLLOUT), revents: 0),
            ]
            if poll(&fds, 3, -1) < 0 {
                if errno == EINTR { continue }
                return
            }
            if fds[1].revents != 0 { return }
            if fds[0].revents != 0 {
                // The caller sends nothing after its request: readable means it closed (0) or broke (-1).
                var byte: UInt8 = 0
                if recv(client, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT)) <= 0 { return }
            }
            guard fds[2].revents != 0 else { continue }
            if pending.isEmpty {
                let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
                if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                if count <= 0 { return }
                pending = Array(buffer[0..<count])
            } else {
                let written = pending.withUnsafeBytes { write(writeEnd, $0.baseAddress, $0.count) }
                if written < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                if written < 0 { return }
                pending.removeFirst(written)
            }
        }
    }

    /// Stops the relay (the command has ended) and closes everything.
    func finish() {
        var byte: UInt8 = 1
        _ = write(stop[1], &byte, 1)
        thread?.join()
        close(output)
        close(stop[0])
        close(stop[1])
    }
}
