// FileOutput: writes a whole buffer to a descriptor that may be slow or non-blocking (a terminal, a PTY master).
import Glibc

public enum FileOutput {
    /// Writes everything, retrying short writes and EINTR, and waiting on EAGAIN (a non-blocking PTY or terminal).
    /// False when the descriptor refused (a full disk, a closed terminal): the caller says what was not written.
    @discardableResult
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var offset = 0
        while offset < bytes.count {
            let written = write(fd, base + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN {
                    var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&pfd, 1, 1000)
                    continue
                }
                return false
            }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }
}
