// WakePipe: a pipe one thread writes a byte to so that another thread blocked in poll() wakes up at once (a
// cancelled connect, a watcher told to look again). Both ends close-on-exec and non-blocking.
import FoundationEssentials
import Glibc

public final class WakePipe: @unchecked Sendable {
    /// Poll this for POLLIN; -1 when the pipe could not be made (then nothing wakes early, nothing breaks).
    public let readEnd: Int32
    private let writeEnd: Int32

    public init() {
        var fds: [Int32] = [-1, -1]
        if CloseOnExec.pipe(&fds, nonBlocking: true) != 0 { fds = [-1, -1] }
        readEnd = fds[0]
        writeEnd = fds[1]
    }

    deinit {
        if readEnd >= 0 { close(readEnd) }
        if writeEnd >= 0 { close(writeEnd) }
    }

    /// Wakes the poller (a full pipe already will).
    public func signal() {
        guard writeEnd >= 0 else { return }
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Empties the pipe; true when there was something (it was signalled since the last drain).
    @discardableResult
    public func drain() -> Bool { WakePipe.drain(readEnd) }

    /// Reads everything waiting on a non-blocking `fd`; true when there was something.
    public static func drain(_ fd: Int32) -> Bool {
        guard fd >= 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 4096)
        var any = false
        while read(fd, &buffer, buffer.count) > 0 { any = true }
        return any
    }
}
