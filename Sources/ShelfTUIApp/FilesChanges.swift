// FilesChanges: the file pane's changes made — on this machine with the system calls, on the host over the pane's
// SFTP session — and the line each one shows. A folder deleted goes with what is in it, walked without following a
// link (a link is removed, never what it points at); a rename never replaces an existing name.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfSSH
import ShelfUI

enum FilesChanges {
    static func words(_ change: FilesChange) -> String {
        switch change {
        case .makeFolder(let path): "made the folder \(FileName.shown(path))"
        case .rename(let from, let to):
            "renamed \(FileName.shown(FilesPath.last(from) ?? from)) to \(FileName.shown(FilesPath.last(to) ?? to))"
        case .delete(let path, _): "deleted \(FileName.shown(path))"
        case .setMode(let path, let mode): "\(FileName.shown(path)) is now \(String(mode, radix: 8))"
        }
    }

    // MARK: this machine

    static func local(_ change: FilesChange) -> Result<String, OperationFailure> {
        func c(_ path: [UInt8]) -> [CChar] { path.map { CChar(bitPattern: $0) } + [0] }
        func failed(_ doing: String) -> Result<String, OperationFailure> {
            .failure(OperationFailure("\(doing): \(String(cString: strerror(errno)))"))
        }
        switch change {
        case .makeFolder(let path):
            // The umask applies, as mkdir(1) does.
            if mkdir(c(path), 0o777) != 0 { return failed("cannot make the folder \(FileName.shown(path))") }
        case .rename(let from, let to):
            // An existing name is refused, never replaced (rename(2) would replace it). Checked just before: only
            // this user's own programs could make the name in between (renameat2's NOREPLACE is not in Swift's
            // Glibc without _GNU_SOURCE).
            var existing = stat()
            if lstat(c(to), &existing) == 0 {
                return .failure(OperationFailure("\(FileName.shown(to)) already exists: nothing renamed"))
            }
            if rename(c(from), c(to)) != 0 {
                return failed("cannot rename \(FileName.shown(from)) to \(FileName.shown(to))")
            }
        case .delete(let path, let folder):
            if folder {
                if let problem = removeLocalTree(path) { return .failure(OperationFailure(problem)) }
            } else if unlink(c(path)) != 0 {
                return failed("cannot delete \(FileName.shown(path))")
            }
        case .setMode(let path, let mode):
            // fchmodat without following a final link: a link's target is not changed through it.
            var info = stat()
            if lstat(c(path), &info) == 0, info.st_mode & S_IFMT == S_IFLNK {
                return .failure(OperationFailure("\(FileName.shown(path)) is a link: change its target's mode"))
            }
            if chmod(c(path), mode_t(mode)) != 0 { return failed("cannot change the mode of \(FileName.shown(path))") }
        }
        return .success(words(change))
    }

    /// Deletes a local folder and all in it (links removed, not followed); the first failure's words, or nil.
    private static func removeLocalTree(_ path: [UInt8]) -> String? {
        let cPath = path.map { CChar(bitPattern: $0) } + [0]
        guard let directory = opendir(cPath) else {
            return "cannot read \(FileName.shown(path)): \(String(cString: strerror(errno)))"
        }
        var names: [[UInt8]] = []
        while let item = readdir(directory) {
            let name = withUnsafeBytes(of: item.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if name != [0x2E] && name != [0x2E, 0x2E] { names.append(name) }
        }
        closedir(directory)
        for name in names {
            let full = FilesPath.join(path, name)
            let cFull = full.map { CChar(bitPattern: $0) } + [0]
            var info = stat()
            guard lstat(cFull, &info) == 0 else { continue }
            if info.st_mode & S_IFMT == S_IFDIR {
                if let problem = removeLocalTree(full) { return problem }
            } else if unlink(cFull) != 0 {
                return "cannot delete \(FileName.shown(full)): \(String(cString: strerror(errno)))"
            }
        }
        if rmdir(cPath) != 0 { return "cannot delete \(FileName.shown(path)): \(String(cString: strerror(errno)))" }
        return nil
    }

    // MARK: the host

    static func remote(_ change: FilesChange, sftp: SftpSession) -> Result<String, OperationFailure> {
        do {
            switch change {
            case .makeFolder(let path): try sftp.makeDirectory(bytes: path, mode: 0o755)
            case .rename(let from, let to):
                // OpenSSH's server refuses a rename onto an existing name; checked first to say so in words.
                if try sftp.lstatExists(bytes: to) {
                    return .failure(OperationFailure("\(FileName.shown(to)) already exists: nothing renamed"))
                }
                try sftp.rename(bytes: from, to: to)
            case .delete(let path, let folder):
                if folder { try removeRemoteTree(path, sftp: sftp) } else { try sftp.unlink(bytes: path) }
            case .setMode(let path, let mode): try sftp.setPermissions(bytes: path, mode)
            }
        } catch {
            return .failure(OperationFailure(TUIErrorLine.text(error)))
        }
        return .success(words(change))
    }

    /// The listing's types are the entries' own (a link is a link): a folder is walked, anything else removed.
    private static func removeRemoteTree(_ path: [UInt8], sftp: SftpSession) throws(SSHError) {
        var entries: [SftpListedEntry] = []
        try sftp.list(bytes: path) { batch in
            entries += batch
            return true
        }
        for entry in entries {
            let full = FilesPath.join(path, entry.name)
            if entry.attributes.isDirectory {
                try removeRemoteTree(full, sftp: sftp)
            } else {
                try sftp.unlink(bytes: full)
            }
        }
        try sftp.removeDirectory(bytes: path)
    }
}
