// FilesEditCopy: the private copy of a host's file the editor works on — a 0600 file in a fresh 0700 folder under
// sshelf's runtime folder (`RUNTIME/edit/XXXXXX/NAME`, NAME made of the server's name with only plain characters
// left), the bytes as downloaded and the host's size, time and mode then (what "changed meanwhile" is judged on).
// Removed with its folder once the edit is saved, dropped or fails to start; kept only when a save failed.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfSSH
import ShelfSystem
import ShelfUI

final class FilesEditCopy: @unchecked Sendable {
    let id: Int
    /// The host's file (its real path: a link was resolved, so the save replaces the file, not the link).
    let remotePath: [UInt8]
    /// The private folder, and the copy in it.
    let folder: String
    let file: String
    /// The file's bytes as downloaded, and what the host said of it then.
    let original: [UInt8]
    let size: UInt64?
    let modified: UInt64?
    let permissions: UInt32
    /// What the editor left, once it differs from `original` (set before the save).
    var edited: [UInt8]?

    private init(
        id: Int, remotePath: [UInt8], folder: String, file: String, original: [UInt8], attributes: SftpAttributes
    ) {
        self.id = id
        self.remotePath = remotePath
        self.folder = folder
        self.file = file
        self.original = original
        size = attributes.size
        modified = attributes.modificationTime
        permissions = (attributes.permissions ?? 0o644) & 0o777
    }

    var shownName: String { FileName.shown(FilesPath.last(remotePath) ?? remotePath) }

    /// Writes `contents` to a new private copy under `runtime` (sshelf's runtime folder).
    static func make(
        id: Int, runtime: String, remotePath: [UInt8], contents: [UInt8], attributes: SftpAttributes
    ) throws(EditorProblem) -> FilesEditCopy {
        let base = runtime + "/edit"
        do { try PrivateFiles.ensureDirectory(base, within: runtime) } catch { throw EditorProblem(error.description) }
        // mkdtemp makes the folder 0700 whatever the umask, under a name nobody else can guess or take.
        var template = Array((base + "/XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw problem("cannot make a folder in \(base)", errno)
        }
        let folder = String(cString: made)
        let file = folder + "/" + EditorRoundTrip.localName(FilesPath.last(remotePath) ?? remotePath)
        let copy = FilesEditCopy(
            id: id, remotePath: remotePath, folder: folder, file: file, original: contents, attributes: attributes)
        let fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, PrivateFiles.fileMode)
        guard fd >= 0 else {
            let code = errno
            copy.remove()
            throw problem("cannot create \(file)", code)
        }
        let written = fchmod(fd, PrivateFiles.fileMode) == 0 && contents.withUnsafeBytes { FileOutput.writeAll(fd, $0) }
        let code = errno
        if close(fd) != 0 || !written {
            copy.remove()
            throw problem("cannot write \(file)", code)
        }
        return copy
    }

    /// What the copy holds now (the editor may have replaced the file: it is opened by name, never through a
    /// link), or nil when it cannot be read or grew past the round trip's limit.
    func readBack() -> [UInt8]? {
        let fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
            UInt64(max(0, info.st_size)) <= EditorRoundTrip.sizeLimit
        else { return nil }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { return bytes }
            bytes += buffer.prefix(count)
            if UInt64(bytes.count) > EditorRoundTrip.sizeLimit { return nil }
        }
    }

    /// Removes the copy and its folder (with whatever the editor left there: a backup, a swap file).
    func remove() {
        try? FileManager.default.removeItem(atPath: folder)
    }

    private static func problem(_ doing: String, _ code: Int32) -> EditorProblem {
        EditorProblem("\(doing): \(String(cString: strerror(code)))")
    }
}
