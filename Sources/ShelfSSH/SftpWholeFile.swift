// SftpWholeFile: a small remote file read or written whole, on paths as bytes — what the file pane's editor round
// trip needs. Reading checks what was opened (a regular file, its size known and under the limit, no more bytes
// than that size); writing goes to a temporary name beside the file (`.NAME.sshelf-XXXXXXXX.part`, created
// exclusive, as cp's uploads) renamed over it only once complete, so the final name never holds a partial file.
import CLibSSH2
import FoundationEssentials

extension SftpSession {
    /// The whole of the regular file at `path` (a final link followed) and the attributes of what was opened.
    /// Refused: anything but a regular file, a size the server does not say, a size over `limit`, more bytes than
    /// the size.
    public func readWhole(bytes path: [UInt8], limit: UInt64) throws(SSHError) -> (
        bytes: [UInt8], attributes: SftpAttributes
    ) {
        let shown = String(decoding: path, as: UTF8.self)
        // Asked before opening, as cp does: the server's open of a FIFO would wait for a writer, forever.
        guard let target = try stat(bytes: path) else {
            throw SSHError(.channelFailed, "\(shown): no such file on the host")
        }
        guard target.isRegularFile else {
            throw SSHError(.channelFailed, "\(shown) is \(target.kind), not a regular file")
        }
        let file = try open(
            bytes: path, flags: UInt(LIBSSH2_FXF_READ), mode: 0, type: LIBSSH2_SFTP_OPENFILE,
            doing: "cannot open \(shown)")
        defer { file.close() }
        let attributes = try file.attributes()
        guard attributes.isRegularFile else {
            throw SSHError(.channelFailed, "\(shown) is \(attributes.kind), not a regular file")
        }
        guard let size = attributes.size else {
            throw SSHError(.channelFailed, "\(shown): the host did not say its size, so its end cannot be checked")
        }
        guard size <= limit else {
            throw SSHError(
                .channelFailed,
                "\(shown) is \(size) bytes, over the \(limit >> 20) MiB the editor takes: copy it here (c) instead")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(size))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = try file.read(into: buffer)
            if count == 0 { break }
            guard UInt64(bytes.count + count) <= size else {
                throw SSHError(
                    .channelFailed, "\(shown) gave more than the \(size) bytes it had when opened: it is not read")
            }
            bytes += buffer.prefix(count)
        }
        return (bytes, attributes)
    }

    /// Writes `contents` as the file at `path` with permission bits `mode`: into a temporary name beside it first,
    /// then renamed onto `path` — over an existing file when `replacing`, else refused when anything is there. A
    /// failure removes the temporary file (unless the connection is gone).
    public func writeWhole(bytes path: [UInt8], contents: [UInt8], mode: UInt32, replacing: Bool) throws(SSHError) {
        let shown = String(decoding: path, as: UTF8.self)
        if !replacing, try lstatExists(bytes: path) {
            throw SSHError(.channelFailed, "\(shown) already exists")
        }
        let temporary = Self.temporaryName(beside: path)
        let file = try open(
            bytes: temporary, flags: UInt(LIBSSH2_FXF_WRITE | LIBSSH2_FXF_CREAT | LIBSSH2_FXF_EXCL),
            mode: Int(mode), type: LIBSSH2_SFTP_OPENFILE, doing: "cannot create a file beside \(shown)")
        do throws(SSHError) {
            let failure = contents.withUnsafeBytes { raw -> SSHError? in
                do throws(SSHError) { try file.write(raw) } catch { return error }
                return nil
            }
            if let failure { throw failure }
            try file.finish()
            // The server's umask may have narrowed the mode given at creation.
            try setPermissions(bytes: temporary, mode)
            if replacing {
                try replace(temporary, onto: path)
            } else {
                try rename(bytes: temporary, to: path)
            }
        } catch {
            file.close()
            if !lost { _ = try? unlink(bytes: temporary) }
            throw error
        }
    }

    /// Renames `from` onto `to`, replacing it: OpenSSH's server refuses a plain SFTP rename onto an existing name,
    /// so the old file is removed first when it does (`to` is then briefly absent, never partial).
    private func replace(_ from: [UInt8], onto to: [UInt8]) throws(SSHError) {
        do { try rename(bytes: from, to: to) } catch {
            guard !lost, try lstatExists(bytes: to) else { throw error }
            try unlink(bytes: to)
            try rename(bytes: from, to: to)
        }
    }

    /// `.NAME.sshelf-XXXXXXXX.part` in the folder of `path`, NAME cut so the whole stays within 255 bytes.
    static func temporaryName(beside path: [UInt8]) -> [UInt8] {
        let hex = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let suffix = Array((".sshelf-" + String(repeating: "0", count: 8 - hex.count) + hex + ".part").utf8)
        let slash = path.lastIndex(of: 0x2F)
        let folder = slash.map { Array(path[...$0]) } ?? []
        let name = slash.map { Array(path[($0 + 1)...]) } ?? path
        return folder + [0x2E] + name.prefix(255 - 1 - suffix.count) + suffix
    }
}
