// FilesLocalListing: this machine's side of the file pane — a folder read with opendir/readdir and lstat (a link
// is shown as a link, with its target, never followed to list), names kept as bytes; on a thread of its own.
import FoundationEssentials
import Glibc
import ShelfUI

enum FilesLocalListing {
    /// The folder the process runs in (the local side's start).
    static func currentFolder() -> [UInt8] {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return [0x2F] }
        return buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    }

    /// Reads `path` and returns its entries in the pane's order, or why it cannot be read.
    static func read(_ path: [UInt8]) -> Result<[FileEntry], OperationFailure> {
        let cPath = path.map { CChar(bitPattern: $0) } + [0]
        guard let directory = opendir(cPath) else {
            return .failure(
                OperationFailure("cannot list \(FileName.shown(path)): \(String(cString: strerror(errno)))"))
        }
        defer { closedir(directory) }
        var entries: [FileEntry] = []
        var users: [uid_t: String] = [:], groups: [gid_t: String] = [:]
        while let item = readdir(directory) {
            let name = withUnsafeBytes(of: item.pointee.d_name) { raw in
                Array(raw.prefix { $0 != 0 })
            }
            if name == [0x2E] || name == [0x2E, 0x2E] { continue }
            let full = FilesPath.join(path, name).map { CChar(bitPattern: $0) } + [0]
            var info = stat()
            guard lstat(full, &info) == 0 else {
                entries.append(FileEntry(name: name, kind: .other))
                continue
            }
            let kind = FileEntry.Kind(mode: UInt32(info.st_mode))
            var target: String?
            var toFolder = false
            if kind == .link {
                var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
                let count = readlink(full, &buffer, buffer.count - 1)
                if count >= 0 { target = FileName.shown(buffer.prefix(count).map { UInt8(bitPattern: $0) }) }
                var followed = stat()
                toFolder = stat(full, &followed) == 0 && followed.st_mode & S_IFMT == S_IFDIR
            }
            entries.append(
                FileEntry(
                    name: name, kind: kind, size: UInt64(clamping: info.st_size),
                    permissions: UInt32(info.st_mode) & 0o7777,
                    owner: FilesEntryText.user(info.st_uid, cache: &users),
                    group: FilesEntryText.group(info.st_gid, cache: &groups),
                    modified: FilesEntryText.time(UInt64(clamping: info.st_mtim.tv_sec)), linkTarget: target,
                    linkToDirectory: toFolder))
        }
        return .success(FilesOrder.sorted(entries))
    }
}
