// SftpListing: a remote directory read as the server sends it — each name as raw bytes (a name that is not UTF-8
// stays the name the server has, so it can be opened again), the server's `ls -l` line, the attributes — in batches
// as the READDIR answers arrive, so a caller shows the first screenful before the rest. The name buffer is as large
// as an SFTP packet from the start: libssh2 1.10 counts an entry that did not fit as read (the next one is lost, and
// when it was the batch's last the batch is freed), so a too-small buffer cannot be retried with a larger one.
import CLibSSH2
import FoundationEssentials

/// One entry of a remote directory.
public struct SftpListedEntry: Sendable, Equatable {
    /// The name as the server sent it (any bytes but NUL and `/`, which a server may still send: hostile input).
    public var name: [UInt8]
    /// The server's long line (`-rw-r--r-- 1 owner group size date name`), as sent.
    public var longEntry: [UInt8]
    public var attributes: SftpAttributes

    public init(name: [UInt8], longEntry: [UInt8], attributes: SftpAttributes) {
        self.name = name
        self.longEntry = longEntry
        self.attributes = attributes
    }
}

extension SftpSession {
    /// libssh2's largest SFTP packet (LIBSSH2_SFTP_PACKET_MAXLEN): no name it hands over can be longer.
    static let longestListedName = 256 * 1024

    /// Reads the directory at `path` (bytes: a path made of listed names), handing each batch of up to
    /// `batch` entries to `each` (`.` and `..` left out); `each` returns false to stop early. Names with a `/` or a
    /// NUL in them are left out and counted in the answer: no file system has them, and a path made from one would
    /// reach elsewhere.
    @discardableResult
    public func list(
        bytes path: [UInt8], batch: Int = 200, _ each: ([SftpListedEntry]) -> Bool
    ) throws(SSHError) -> Int {
        let shown = String(decoding: path, as: UTF8.self)
        let handle = try open(bytes: path, flags: 0, mode: 0, type: LIBSSH2_SFTP_OPENDIR, doing: "cannot list \(shown)")
        defer { handle.close() }
        var name = [CChar](repeating: 0, count: Self.longestListedName)
        var long = [CChar](repeating: 0, count: Self.longestListedName)
        var pending: [SftpListedEntry] = []
        var leftOut = 0
        while true {
            var attributes = LIBSSH2_SFTP_ATTRIBUTES()
            let count = name.withUnsafeMutableBufferPointer { namePointer in
                long.withUnsafeMutableBufferPointer { longPointer in
                    libssh2_sftp_readdir_ex(
                        handle.raw, namePointer.baseAddress, namePointer.count, longPointer.baseAddress,
                        longPointer.count, &attributes)
                }
            }
            if count == LIBSSH2_ERROR_BUFFER_TOO_SMALL {
                throw SSHError(.channelFailed, "cannot list \(shown): the server sent a name over 256 KiB")
            }
            if count == 0 { break }
            if count < 0 { throw failure(Int32(count), "cannot list \(shown)") }
            let bytes = name.prefix(Int(count)).map { UInt8(bitPattern: $0) }
            if bytes == [0x2E] || bytes == [0x2E, 0x2E] { continue }
            if bytes.contains(0x2F) || bytes.contains(0) {
                leftOut += 1
                continue
            }
            let longBytes = long.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
            pending.append(SftpListedEntry(name: bytes, longEntry: longBytes, attributes: SftpAttributes(attributes)))
            if pending.count >= batch {
                guard each(pending) else { return leftOut }
                pending.removeAll(keepingCapacity: true)
            }
        }
        if !pending.isEmpty { _ = each(pending) }
        return leftOut
    }

    /// Where the link at `path` points, as the server says (bytes), or nil when it is not a link it can read.
    public func readLink(bytes path: [UInt8]) -> [UInt8]? {
        var target = [CChar](repeating: 0, count: 4096)
        let count = path.withUnsafeBufferPointer { pathPointer in
            pathPointer.withMemoryRebound(to: CChar.self) { pathChars in
                target.withUnsafeMutableBufferPointer {
                    libssh2_sftp_symlink_ex(
                        raw, pathChars.baseAddress, UInt32(pathChars.count), $0.baseAddress, UInt32($0.count),
                        LIBSSH2_SFTP_READLINK)
                }
            }
        }
        guard count >= 0 else { return nil }
        return target.prefix(Int(count)).map { UInt8(bitPattern: $0) }
    }

    /// The attributes of `path` (bytes), following a final link; nil when nothing is there.
    public func stat(bytes path: [UInt8]) throws(SSHError) -> SftpAttributes? {
        var attributes = LIBSSH2_SFTP_ATTRIBUTES()
        let code = path.withUnsafeBufferPointer { pointer in
            pointer.withMemoryRebound(to: CChar.self) {
                libssh2_sftp_stat_ex(raw, $0.baseAddress, UInt32($0.count), LIBSSH2_SFTP_STAT, &attributes)
            }
        }
        if code == 0 { return SftpAttributes(attributes) }
        if isMissing(code) { return nil }
        throw failure(code, "cannot look at \(String(decoding: path, as: UTF8.self))")
    }

    /// The server's absolute form of `path` (`.` is the login's home).
    public func realPath(bytes path: [UInt8]) throws(SSHError) -> [UInt8] {
        var target = [CChar](repeating: 0, count: 4096)
        let count = path.withUnsafeBufferPointer { pathPointer in
            pathPointer.withMemoryRebound(to: CChar.self) { pathChars in
                target.withUnsafeMutableBufferPointer {
                    libssh2_sftp_symlink_ex(
                        raw, pathChars.baseAddress, UInt32(pathChars.count), $0.baseAddress, UInt32($0.count),
                        LIBSSH2_SFTP_REALPATH)
                }
            }
        }
        if count < 0 { throw failure(count, "cannot find \(String(decoding: path, as: UTF8.self))") }
        return target.prefix(Int(count)).map { UInt8(bitPattern: $0) }
    }

    func open(bytes path: [UInt8], flags: UInt, mode: Int, type: Int32, doing: String) throws(SSHError) -> SftpFile {
        let handle = path.withUnsafeBufferPointer { pointer in
            pointer.withMemoryRebound(to: CChar.self) {
                libssh2_sftp_open_ex(raw, $0.baseAddress, UInt32($0.count), flags, mode, type)
            }
        }
        guard let handle else { throw failure(Int32(libssh2_session_last_errno(session.raw)), doing) }
        return SftpFile(handle, sftp: self)
    }
}
