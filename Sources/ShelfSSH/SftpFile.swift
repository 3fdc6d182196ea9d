// SftpFile: one open remote file. Reads and writes take large buffers, which libssh2 splits into several SFTP
// requests in flight at once (its pipelining): a transfer is not one round trip per 32 KiB.
import CLibSSH2
import FoundationEssentials

public final class SftpFile {
    let raw: OpaquePointer
    private let sftp: SftpSession
    private var closed = false

    init(_ raw: OpaquePointer, sftp: SftpSession) {
        self.raw = raw
        self.sftp = sftp
    }

    deinit { close() }

    /// Reads up to `buffer.count` bytes; 0 at the end of the file.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(SSHError) -> Int {
        let count = sftp.call {
            libssh2_sftp_read(raw, buffer.baseAddress?.assumingMemoryBound(to: CChar.self), buffer.count)
        }
        if count < 0 { throw sftp.failure(Int32(count), "reading failed") }
        return count
    }

    /// The open file's attributes (fstat on the handle: what was opened, whatever the name points at since).
    public func attributes() throws(SSHError) -> SftpAttributes {
        var attributes = LIBSSH2_SFTP_ATTRIBUTES()
        let code = sftp.call { libssh2_sftp_fstat_ex(raw, &attributes, 0) }
        if code != 0 { throw sftp.failure(code, "cannot look at the open file") }
        return SftpAttributes(attributes)
    }

    /// Writes all of `bytes`.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(SSHError) {
        var offset = 0
        while offset < bytes.count {
            let count = sftp.call {
                libssh2_sftp_write(
                    raw, bytes.baseAddress!.advanced(by: offset).assumingMemoryBound(to: CChar.self),
                    bytes.count - offset)
            }
            if count < 0 { throw sftp.failure(Int32(count), "writing failed") }
            offset += count
        }
    }

    /// Closes the handle; the server's answer says whether everything written reached the file.
    public func finish() throws(SSHError) {
        guard !closed else { return }
        closed = true
        let code = sftp.call { libssh2_sftp_close_handle(raw) }
        if code != 0 { throw sftp.failure(code, "closing the file failed") }
    }

    public func close() {
        guard !closed else { return }
        closed = true
        _ = sftp.call { libssh2_sftp_close_handle(raw) }
    }
}
