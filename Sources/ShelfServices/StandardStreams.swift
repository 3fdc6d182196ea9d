// StandardStreams: output straight to the file descriptors, whole, for every face (a closed pipe ends it quietly).
import Glibc

public enum StandardStreams {
    /// Writes all of `text`, retrying short writes and EINTR; a closed pipe (EPIPE) ends the write quietly.
    public static func write(_ text: String, fd: Int32) {
        var text = text
        text.withUTF8 { write(UnsafeRawBufferPointer($0), fd: fd) }
    }

    /// Writes all of `bytes` (binary-safe, for exec output).
    public static func write(_ bytes: UnsafeRawBufferPointer, fd: Int32) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(fd, base + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }
}
