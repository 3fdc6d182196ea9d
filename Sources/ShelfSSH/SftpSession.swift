// SftpSession: libssh2's SFTP subsystem on a logged-in connection (so only after every hop's host key was verified
// and the login went through the usual credential path) — stat, directories, opening files, rename and unlink.
// Blocking calls on the target session; another thread stops a transfer by aborting the connection. While a copy
// runs several files at once, the session has sibling channels (`sibling`) and every call takes the connection in
// turn (SftpTurns). Each libssh2 return code is translated here, with the server's SFTP status in words.
import CLibSSH2
import FoundationEssentials

/// What the server says about a path.
public struct SftpAttributes: Sendable, Equatable {
    public var size: UInt64?
    /// Type and permission bits, as stat(2)'s st_mode.
    public var mode: UInt32?
    public var accessTime: UInt64?
    public var modificationTime: UInt64?
    /// The owner's and group's numbers, when the server says them.
    public var uid: UInt32?
    public var gid: UInt32?

    public init(size: UInt64? = nil, mode: UInt32? = nil, accessTime: UInt64? = nil, modificationTime: UInt64? = nil) {
        self.size = size
        self.mode = mode
        self.accessTime = accessTime
        self.modificationTime = modificationTime
    }

    public var isDirectory: Bool { type == UInt32(LIBSSH2_SFTP_S_IFDIR) }
    public var isRegularFile: Bool { type == UInt32(LIBSSH2_SFTP_S_IFREG) }
    public var isSymbolicLink: Bool { type == UInt32(LIBSSH2_SFTP_S_IFLNK) }
    public var permissions: UInt32? { mode.map { $0 & 0o7777 } }

    private var type: UInt32? { mode.map { $0 & UInt32(LIBSSH2_SFTP_S_IFMT) } }

    /// What the path is, in words ("a FIFO (named pipe)"), as the server says.
    public var kind: String {
        switch type.map(Int32.init) {
        case LIBSSH2_SFTP_S_IFREG?: "a regular file"
        case LIBSSH2_SFTP_S_IFDIR?: "a directory"
        case LIBSSH2_SFTP_S_IFIFO?: "a FIFO (named pipe)"
        case LIBSSH2_SFTP_S_IFSOCK?: "a socket"
        case LIBSSH2_SFTP_S_IFCHR?: "a character device"
        case LIBSSH2_SFTP_S_IFBLK?: "a block device"
        case LIBSSH2_SFTP_S_IFLNK?: "a symbolic link"
        case nil: "of a type the server did not say"
        default: "a special file"
        }
    }

    init(_ raw: LIBSSH2_SFTP_ATTRIBUTES) {
        let flags = UInt(raw.flags)
        size = flags & UInt(LIBSSH2_SFTP_ATTR_SIZE) != 0 ? UInt64(raw.filesize) : nil
        mode = flags & UInt(LIBSSH2_SFTP_ATTR_PERMISSIONS) != 0 ? UInt32(truncatingIfNeeded: raw.permissions) : nil
        if flags & UInt(LIBSSH2_SFTP_ATTR_ACMODTIME) != 0 {
            accessTime = UInt64(raw.atime)
            modificationTime = UInt64(raw.mtime)
        }
        if flags & UInt(LIBSSH2_SFTP_ATTR_UIDGID) != 0 {
            uid = UInt32(truncatingIfNeeded: raw.uid)
            gid = UInt32(truncatingIfNeeded: raw.gid)
        }
    }

    /// The settable part: permissions, and both times when given.
    var raw: LIBSSH2_SFTP_ATTRIBUTES {
        var raw = LIBSSH2_SFTP_ATTRIBUTES()
        if let permissions {
            raw.flags |= UInt(LIBSSH2_SFTP_ATTR_PERMISSIONS)
            raw.permissions = UInt(permissions)
        }
        if let accessTime, let modificationTime {
            raw.flags |= UInt(LIBSSH2_SFTP_ATTR_ACMODTIME)
            raw.atime = UInt(accessTime)
            raw.mtime = UInt(modificationTime)
        }
        return raw
    }
}

public final class SftpSession {
    let raw: OpaquePointer
    let session: Session
    /// Keeps the connection (and its sessions) alive while the SFTP channel is open.
    private let connection: SSHConnection
    private var closed = false
    /// Set while several channels share the connection (`beginTurns` to `endTurns`): every call goes through it.
    private(set) var turns: SftpTurns?
    private var lostHere = false
    /// The SSH channel under this SFTP session: while in turns, a caller sleeps until something comes for it.
    private lazy var channel: OpaquePointer? = libssh2_sftp_get_channel(raw)
    /// A call failed without an answer from the server (the connection broke or was cut): nothing more can be done
    /// on this session, not even removing a temporary file. A refusal the server sent (an SFTP status) is not this.
    /// A sibling channel's loss is this session's too: they share the connection.
    public var lost: Bool { lostHere || (turns?.lost ?? false) }

    /// Starts the sftp subsystem on the connection's target.
    public init(_ connection: SSHConnection) throws(SSHError) {
        self.connection = connection
        session = connection.target
        session.setBlocking(true)
        guard let raw = libssh2_sftp_init(session.raw) else {
            throw SSHError(
                .channelFailed, "the server did not start its SFTP subsystem", library: session.lastError(),
                hint: "the server needs 'Subsystem sftp' in its sshd_config")
        }
        self.raw = raw
    }

    private init(raw: OpaquePointer, connection: SSHConnection, turns: SftpTurns) {
        self.raw = raw
        self.connection = connection
        session = connection.target
        self.turns = turns
    }

    deinit { close() }

    public func close() {
        guard !closed else { return }
        closed = true
        // Closing waits for the server's close of the channel, not for data on it.
        _ = call(waitingForData: false) { libssh2_sftp_shutdown(raw) }
    }

    // MARK: several channels

    /// From now on this session's calls take the connection in turn with its siblings', from any thread (one thread
    /// per session). Only with no call of this session's running.
    public func beginTurns() {
        guard turns == nil else { return }
        turns = SftpTurns(session)
    }

    /// Back to blocking calls on this session alone (its siblings closed before).
    public func endTurns() {
        guard let turns else { return }
        if turns.lost { lostHere = true }
        turns.end()
        self.turns = nil
    }

    /// Another SFTP channel on the same connection (after `beginTurns`), for one more thread; nil when the server
    /// refuses one more (sshd's MaxSessions), with `lost` set when the connection itself failed.
    public func sibling() -> SftpSession? {
        guard let turns else { return nil }
        // Opening a channel waits for the server's confirmation, not for data on this one.
        let (opened, code) = turns.run(
            for: self, channel: nil,
            { () -> (OpaquePointer?, Int32) in
                let opened = libssh2_sftp_init(session.raw)
                return (opened, opened == nil ? libssh2_session_last_errno(session.raw) : 0)
            }, wouldBlock: { $0.0 == nil && $0.1 == LIBSSH2_ERROR_EAGAIN })
        guard let opened else {
            if code != LIBSSH2_ERROR_CHANNEL_FAILURE && code != LIBSSH2_ERROR_SFTP_PROTOCOL { turns.markLost() }
            return nil
        }
        return SftpSession(raw: opened, connection: connection, turns: turns)
    }

    /// Runs one libssh2 call: straight, or in turn with the siblings while they share the connection.
    func call<T: BinaryInteger>(waitingForData: Bool = true, _ body: () -> T) -> T {
        guard let turns else { return body() }
        return turns.run(
            for: self, channel: waitingForData ? channel : nil, body, wouldBlock: { $0 == LIBSSH2_ERROR_EAGAIN })
    }

    /// The path's attributes (following a final symbolic link), or nil when nothing is there.
    public func stat(_ path: String) throws(SSHError) -> SftpAttributes? {
        var attributes = LIBSSH2_SFTP_ATTRIBUTES()
        let code = call { libssh2_sftp_stat_ex(raw, path, UInt32(path.utf8.count), LIBSSH2_SFTP_STAT, &attributes) }
        if code == 0 { return SftpAttributes(attributes) }
        if isMissing(code) { return nil }
        throw failure(code, "cannot look at \(path)")
    }

    /// Sets permissions and times (whatever `attributes` carries of them).
    public func setAttributes(_ path: String, _ attributes: SftpAttributes) throws(SSHError) {
        var raw = attributes.raw
        let code = call { libssh2_sftp_stat_ex(self.raw, path, UInt32(path.utf8.count), LIBSSH2_SFTP_SETSTAT, &raw) }
        if code != 0 { throw failure(code, "cannot set the permissions and times of \(path)") }
    }

    public func makeDirectory(_ path: String, mode: UInt32) throws(SSHError) {
        let code = call { libssh2_sftp_mkdir_ex(raw, path, UInt32(path.utf8.count), Int(mode)) }
        if code != 0 { throw failure(code, "cannot make the directory \(path)") }
    }

    public func unlink(_ path: String) throws(SSHError) {
        let code = call { libssh2_sftp_unlink_ex(raw, path, UInt32(path.utf8.count)) }
        if code != 0 { throw failure(code, "cannot remove \(path)") }
    }

    /// Removes `path`; nothing there is no failure (a temporary file a stop removes may never have been made).
    public func removeIfPresent(_ path: String) throws(SSHError) {
        let code = call { libssh2_sftp_unlink_ex(raw, path, UInt32(path.utf8.count)) }
        if code != 0 && !isMissing(code) { throw failure(code, "cannot remove \(path)") }
    }

    /// Renames `from` to `to`, replacing a file there. OpenSSH's server refuses a plain SFTP rename onto an existing
    /// name, so that file is removed first: `to` is then briefly absent, never partial.
    public func rename(_ from: String, to: String) throws(SSHError) {
        let flags = Int(LIBSSH2_SFTP_RENAME_OVERWRITE | LIBSSH2_SFTP_RENAME_ATOMIC | LIBSSH2_SFTP_RENAME_NATIVE)
        let renaming = { () -> Int32 in
            self.call {
                libssh2_sftp_rename_ex(self.raw, from, UInt32(from.utf8.count), to, UInt32(to.utf8.count), flags)
            }
        }
        var code = renaming()
        if code != 0, (try? stat(to)) != nil {
            try unlink(to)
            code = renaming()
        }
        if code != 0 { throw failure(code, "cannot rename \(from) to \(to)") }
    }

    /// Opens a file to read.
    public func openForReading(_ path: String) throws(SSHError) -> SftpFile {
        try open(
            path, flags: UInt(LIBSSH2_FXF_READ), mode: 0, type: LIBSSH2_SFTP_OPENFILE, doing: "cannot open \(path)")
    }

    /// Creates a new file to write (an existing one is refused: a temporary name must be ours alone).
    /// A failure names `shown` (the file the user asked for) rather than `path` when given: a temporary name
    /// beside it means nothing to them.
    public func create(_ path: String, mode: UInt32, shown: String? = nil) throws(SSHError) -> SftpFile {
        try open(
            path, flags: UInt(LIBSSH2_FXF_WRITE | LIBSSH2_FXF_CREAT | LIBSSH2_FXF_EXCL), mode: Int(mode),
            type: LIBSSH2_SFTP_OPENFILE, doing: "cannot create \(shown ?? path)")
    }

    /// The names in a directory (without . and ..) and their attributes.
    public func list(_ path: String) throws(SSHError) -> [(name: String, attributes: SftpAttributes)] {
        let handle = try open(path, flags: 0, mode: 0, type: LIBSSH2_SFTP_OPENDIR, doing: "cannot list \(path)")
        defer { handle.close() }
        var entries: [(String, SftpAttributes)] = []
        // As large as an SFTP packet: a name that did not fit could not be read again (SftpListing).
        var buffer = [CChar](repeating: 0, count: Self.longestListedName)
        while true {
            var attributes = LIBSSH2_SFTP_ATTRIBUTES()
            let count = buffer.withUnsafeMutableBufferPointer { pointer in
                call { libssh2_sftp_readdir_ex(handle.raw, pointer.baseAddress, pointer.count, nil, 0, &attributes) }
            }
            if count == 0 { break }
            if count < 0 { throw failure(count, "cannot list \(path)") }
            let name = buffer.withUnsafeBufferPointer { pointer in
                String(
                    decoding: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(pointer).prefix(Int(count))),
                    as: UTF8.self)
            }
            if name != "." && name != ".." { entries.append((name, SftpAttributes(attributes))) }
        }
        return entries
    }

    private func open(_ path: String, flags: UInt, mode: Int, type: Int32, doing: String) throws(SSHError) -> SftpFile {
        let opening = { () -> (OpaquePointer?, Int32) in
            let handle = libssh2_sftp_open_ex(self.raw, path, UInt32(path.utf8.count), flags, mode, type)
            return (handle, handle == nil ? libssh2_session_last_errno(self.session.raw) : 0)
        }
        let (handle, code) =
            turns?.run(
                for: self, channel: channel, opening, wouldBlock: { $0.0 == nil && $0.1 == LIBSSH2_ERROR_EAGAIN })
            ?? opening()
        guard let handle else { throw failure(code, doing) }
        return SftpFile(handle, sftp: self)
    }

    func isMissing(_ code: Int32) -> Bool {
        guard code == LIBSSH2_ERROR_SFTP_PROTOCOL else { return false }
        let status = libssh2_sftp_last_error(raw)
        return status == LIBSSH2_FX_NO_SUCH_FILE || status == LIBSSH2_FX_NO_SUCH_PATH
    }

    /// An error for a failed call: the server's SFTP status when it sent one, else libssh2's own message.
    func failure(_ code: Int32, _ doing: String) -> SSHError {
        guard code == LIBSSH2_ERROR_SFTP_PROTOCOL else {
            lostHere = true
            turns?.markLost()
            // libssh2's error text is the session's: read with the connection to this thread.
            let library = turns?.alone { session.lastError() } ?? session.lastError()
            return SSHError(.channelFailed, doing, library: library)
        }
        return SSHError(.channelFailed, "\(doing): \(Self.words(libssh2_sftp_last_error(raw)))")
    }

    static func words(_ status: UInt) -> String {
        switch status {
        case UInt(LIBSSH2_FX_NO_SUCH_FILE), UInt(LIBSSH2_FX_NO_SUCH_PATH): "no such file or directory"
        case UInt(LIBSSH2_FX_PERMISSION_DENIED): "permission denied"
        case UInt(LIBSSH2_FX_FILE_ALREADY_EXISTS): "it already exists"
        case UInt(LIBSSH2_FX_NO_SPACE_ON_FILESYSTEM), UInt(LIBSSH2_FX_QUOTA_EXCEEDED): "no space left"
        case UInt(LIBSSH2_FX_NOT_A_DIRECTORY): "not a directory"
        case UInt(LIBSSH2_FX_FAILURE): "the server said it failed"
        default: "SFTP status \(status)"
        }
    }
}
