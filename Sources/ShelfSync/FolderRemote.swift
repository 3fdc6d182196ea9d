// FolderRemote: a sync remote that is a directory (kept in step by Syncthing, Nextcloud, Dropbox, NFS, sshfs, or a
// git working copy). Checks that it is usable and says exactly why not; reads files with bounds (regular files
// only, never through a symlink); writes each file once (temp file, fsync, rename, never over an existing one).
import Foundation
import ShelfCore
import ShelfSystem

public struct FolderRemote: Sendable {
    public let layout: RemoteLayout

    public init(path: String) { layout = RemoteLayout(root: path) }

    /// Checks the folder exists, is a directory, is writable, and is not from a newer format. Returns the format
    /// it holds: 0 for a remote nothing was written to yet.
    public func check() throws(SyncFailure) -> Int {
        let root = layout.root
        var info = stat()
        guard stat(root, &info) == 0 else {
            throw SyncFailure("sync folder \(root) not found", hint: "mount or create it, or change it with 'sshelf sync enable --folder PATH'")
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw SyncFailure("sync folder \(root) is not a directory", hint: "point sync at a folder")
        }
        guard access(root, W_OK | X_OK) == 0 else {
            throw SyncFailure("sync folder \(root) is not writable", hint: "check its owner and permissions (and that it is not mounted read-only)")
        }
        guard let data = FileManager.default.contents(atPath: layout.formatFile) else { return 0 }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let format = object["format"] as? Int,
              format >= 1 else {
            throw SyncFailure("sync folder \(root) has an unreadable format.json", hint: "is this an sshelf sync folder?")
        }
        if format > RemoteLayout.format {
            throw SyncFailure("remote format \(format) is newer than this program (\(RemoteLayout.format))", hint: "upgrade sshelf on this device")
        }
        return format
    }

    /// Writes format.json for this format (deterministic bytes: two devices writing it at once agree).
    public func writeFormat() throws(SyncFailure) {
        let data = Data("{\"format\":\(RemoteLayout.format)}\n".utf8)
        guard FileManager.default.contents(atPath: layout.formatFile) != data else { return }
        try failing { try PrivateFiles.atomicWrite(data, to: layout.formatFile) }
    }

    /// Device folders on the remote (any name that could be a device id).
    public func deviceFolders() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: layout.devicesDirectory)) ?? []).filter(RemoteLayout.isValidDeviceID).sorted()
    }

    /// The entry numbers present in a device's folder, ascending.
    public func entries(of device: String) -> [Int64] {
        ((try? FileManager.default.contentsOfDirectory(atPath: layout.deviceDirectory(device))) ?? [])
            .compactMap(RemoteLayout.sequence).sorted()
    }

    /// Whether the remote holds any entry at all (then it belongs to a sync group).
    public var hasEntries: Bool { deviceFolders().contains { !entries(of: $0).isEmpty } }

    /// The bytes of one file, bounded; a symlink, a directory or a special file is refused.
    func read(_ path: String, label: String, limit: Int) throws(SyncFailure) -> [UInt8] {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw SyncFailure("\(label) is missing") }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw SyncFailure("\(label) is not a regular file") }
        guard info.st_size <= limit else { throw SyncFailure("\(label) is larger than \(limit / 1024 / 1024) MiB") }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { throw SyncFailure("\(label) is unreadable") }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var offset = 0
        while offset < bytes.count {
            let got = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + offset, $0.count - offset) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { break }
            offset += got
        }
        guard offset == bytes.count else { throw SyncFailure("\(label) changed while it was read") }
        return bytes
    }

    public func readEntry(_ device: String, _ seq: Int64) throws(SyncFailure) -> [UInt8] {
        try read(layout.entryPath(device, seq), label: "devices/\(device)/\(RemoteLayout.entryName(seq))", limit: RemoteLayout.maxEntryBytes)
    }

    /// Writes this device's entry `seq`; refuses to replace a file already there (an entry is written once).
    public func writeEntry(_ device: String, _ seq: Int64, _ bytes: [UInt8]) throws(SyncFailure) {
        let path = layout.entryPath(device, seq)
        guard !FileManager.default.fileExists(atPath: path) else {
            throw SyncFailure("devices/\(device)/\(RemoteLayout.entryName(seq)) already exists; an entry is never written twice")
        }
        try failing {
            try PrivateFiles.ensureDirectory(layout.devicesDirectory)
            try PrivateFiles.ensureDirectory(layout.deviceDirectory(device))
            try PrivateFiles.atomicWrite(Data(bytes), to: path)
        }
    }

    /// Removes one of this device's own files (compaction, or a file it did not write).
    public func removeEntry(_ device: String, _ seq: Int64) {
        try? FileManager.default.removeItem(atPath: layout.entryPath(device, seq))
    }

    // MARK: invites

    public func readInviteBox(_ invite: UUID) throws(SyncFailure) -> [UInt8] {
        try read(layout.inviteBox(invite), label: "invites/\(invite.lowerText).box", limit: RemoteLayout.maxInviteBytes)
    }

    public func hasInviteBox(_ invite: UUID) -> Bool { FileManager.default.fileExists(atPath: layout.inviteBox(invite)) }

    public func writeInviteBox(_ invite: UUID, _ bytes: [UInt8]) throws(SyncFailure) {
        try failing {
            try PrivateFiles.ensureDirectory(layout.invitesDirectory)
            try PrivateFiles.atomicWrite(Data(bytes), to: layout.inviteBox(invite))
        }
    }

    /// The devices that left a claim on an invite, with the claim's bytes (unreadable claims are skipped).
    public func claims(_ invite: UUID) -> [(device: String, bytes: [UInt8])] {
        let prefix = invite.lowerText + "."
        let names = (try? FileManager.default.contentsOfDirectory(atPath: layout.invitesDirectory)) ?? []
        return names.sorted().compactMap { name in
            guard name.hasPrefix(prefix), name.hasSuffix(".claim") else { return nil }
            let device = String(name.dropFirst(prefix.count).dropLast(6))
            guard RemoteLayout.isValidDeviceID(device),
                  let bytes = try? read(layout.claim(invite, device: device), label: "invites/\(name)", limit: RemoteLayout.maxInviteBytes)
            else { return nil }
            return (device, bytes)
        }
    }

    public func writeClaim(_ invite: UUID, device: String, _ bytes: [UInt8]) throws(SyncFailure) {
        try failing {
            try PrivateFiles.ensureDirectory(layout.invitesDirectory)
            try PrivateFiles.atomicWrite(Data(bytes), to: layout.claim(invite, device: device))
        }
    }

    /// Removes an invite's box and every claim on it.
    public func removeInvite(_ invite: UUID) {
        try? FileManager.default.removeItem(atPath: layout.inviteBox(invite))
        let prefix = invite.lowerText + "."
        for name in (try? FileManager.default.contentsOfDirectory(atPath: layout.invitesDirectory)) ?? [] where name.hasPrefix(prefix) {
            try? FileManager.default.removeItem(atPath: layout.invitesDirectory + "/" + name)
        }
    }

    // MARK: format 1

    /// Removes every file format 1 wrote (plaintext records, device files, credential batches of every device),
    /// which this version never reads. Returns how many files went.
    public func removeFormatOneFiles() -> Int {
        var removed = 0
        let manager = FileManager.default
        for device in (try? manager.contentsOfDirectory(atPath: layout.devicesDirectory)) ?? [] {
            let folder = layout.deviceDirectory(device)
            for name in RemoteLayout.formatOneNames {
                let path = folder + "/" + name
                var info = stat()
                guard lstat(path, &info) == 0 else { continue }
                if (info.st_mode & S_IFMT) == S_IFDIR {
                    removed += ((try? manager.subpathsOfDirectory(atPath: path)) ?? []).filter { !isDirectory(path + "/" + $0) }.count
                } else {
                    removed += 1
                }
                try? manager.removeItem(atPath: path)
            }
            if ((try? manager.contentsOfDirectory(atPath: folder)) ?? ["?"]).isEmpty { try? manager.removeItem(atPath: folder) }
        }
        return removed
    }

    private func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    private func failing(_ body: () throws -> Void) throws(SyncFailure) {
        do { try body() } catch {
            throw SyncFailure("cannot write to sync folder \(layout.root): \(error)", hint: "check free space and permissions")
        }
    }
}
