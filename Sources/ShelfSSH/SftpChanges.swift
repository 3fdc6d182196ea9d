// SftpChanges: the file pane's changes on the host, on paths as bytes (made of listed names, never decoded) — make
// a folder, rename (never over an existing name: the server refuses), remove a file or link, remove an empty
// folder, set the permission bits. Each failure says what was asked and the server's SFTP status.
import CLibSSH2
import FoundationEssentials

extension SftpSession {
    private func shown(_ path: [UInt8]) -> String { String(decoding: path, as: UTF8.self) }

    private func call(_ path: [UInt8], _ body: (UnsafePointer<CChar>?, UInt32) -> Int32) -> Int32 {
        path.withUnsafeBufferPointer { pointer in
            pointer.withMemoryRebound(to: CChar.self) { body($0.baseAddress, UInt32($0.count)) }
        }
    }

    public func makeDirectory(bytes path: [UInt8], mode: UInt32) throws(SSHError) {
        let code = call(path) { libssh2_sftp_mkdir_ex(raw, $0, $1, Int(mode)) }
        if code != 0 { throw failure(code, "cannot make the folder \(shown(path))") }
    }

    /// Renames without replacing: an existing `to` is the server's refusal, said as such.
    public func rename(bytes from: [UInt8], to: [UInt8]) throws(SSHError) {
        let code = call(from) { fromPointer, fromLength in
            call(to) { toPointer, toLength in
                libssh2_sftp_rename_ex(
                    raw, fromPointer, fromLength, toPointer, toLength,
                    Int(LIBSSH2_SFTP_RENAME_ATOMIC | LIBSSH2_SFTP_RENAME_NATIVE))
            }
        }
        if code != 0 { throw failure(code, "cannot rename \(shown(from)) to \(shown(to))") }
    }

    /// Removes a file or a link (never what a link points at).
    public func unlink(bytes path: [UInt8]) throws(SSHError) {
        let code = call(path) { libssh2_sftp_unlink_ex(raw, $0, $1) }
        if code != 0 { throw failure(code, "cannot remove \(shown(path))") }
    }

    public func removeDirectory(bytes path: [UInt8]) throws(SSHError) {
        let code = call(path) { libssh2_sftp_rmdir_ex(raw, $0, $1) }
        if code != 0 { throw failure(code, "cannot remove the folder \(shown(path))") }
    }

    /// Sets the permission bits only (the server applies them to what the path names).
    public func setPermissions(bytes path: [UInt8], _ permissions: UInt32) throws(SSHError) {
        var attributes = SftpAttributes(mode: permissions).raw
        let code = call(path) { libssh2_sftp_stat_ex(raw, $0, $1, LIBSSH2_SFTP_SETSTAT, &attributes) }
        if code != 0 { throw failure(code, "cannot change the mode of \(shown(path))") }
    }
}

extension SftpSession {
    /// Whether anything is at `path`, a link included (not followed).
    public func lstatExists(bytes path: [UInt8]) throws(SSHError) -> Bool {
        var attributes = LIBSSH2_SFTP_ATTRIBUTES()
        let code = path.withUnsafeBufferPointer { pointer in
            pointer.withMemoryRebound(to: CChar.self) {
                libssh2_sftp_stat_ex(raw, $0.baseAddress, UInt32($0.count), LIBSSH2_SFTP_LSTAT, &attributes)
            }
        }
        if code == 0 { return true }
        if isMissing(code) { return false }
        throw failure(code, "cannot look at \(String(decoding: path, as: UTF8.self))")
    }
}
