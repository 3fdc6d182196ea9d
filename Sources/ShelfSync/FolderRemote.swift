// FolderRemote: a sync remote that is a directory (kept in step by Syncthing, Nextcloud, Dropbox, NFS, sshfs, or a
// git working copy). Checks that it is usable and says exactly why not; reads files with bounds (regular files
// only, never through a symlink); writes each file once (temp file, fsync, rename, never over an existing one).
// Below its root nothing is followed: a link (or a special file) where sync keeps a folder is reported or, for this
// device's own folder, replaced — so a remote cannot point a removal, a write or a chmod outside itself.
import Foundation
import ShelfCore
import ShelfSystem

public struct FolderRemote: Sendable {
    public let layout: RemoteLayout

    public init(path: String) { layout = RemoteLayout(root: path) }

    /// The folder itself: it exists, is a directory (the root may be a link the user made), and is writable.
    public func checkUsable() throws(SyncFailure) {
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
    }

    /// Checks the folder is usable, that sync's own folders in it are real folders, and that it is not from a newer
    /// format. Returns the format it holds: 0 for a remote nothing was written to yet.
    public func check() throws(SyncFailure) -> Int {
        try checkUsable()
        let root = layout.root
        for (name, path) in [("devices", layout.devicesDirectory), ("invites", layout.invitesDirectory)] {
            if let kind = FolderRemote.kind(path), kind != S_IFDIR {
                throw SyncFailure("sync folder \(root) holds '\(name)' as \(FolderRemote.describe(kind)), not a folder; sync does not follow it",
                                  hint: "sshelf never writes one: remove \(path) (the devices write their files again)")
            }
        }
        guard FolderRemote.kind(layout.formatFile) != nil else { return 0 }
        guard let data = try? read(layout.formatFile, label: "format.json", limit: RemoteLayout.maxFormatBytes),
              let object = try? JSONSerialization.jsonObject(with: Data(data)) as? [String: Any], let format = object["format"] as? Int,
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
        guard (try? read(layout.formatFile, label: "format.json", limit: RemoteLayout.maxFormatBytes)).map({ Data($0) }) != data else { return }
        try failing { try PrivateFiles.atomicWrite(data, to: layout.formatFile) }
    }

    /// Device folders on the remote (any name that could be a device id; a link under such a name too, so that it
    /// is reported: see `folderProblem`).
    public func deviceFolders() -> [String] {
        guard FolderRemote.kind(layout.devicesDirectory) == S_IFDIR else { return [] }
        return ((try? FileManager.default.contentsOfDirectory(atPath: layout.devicesDirectory)) ?? []).filter(RemoteLayout.isValidDeviceID).sorted()
    }

    /// Why a device's folder cannot be read: something other than a real folder under its name. Nil when it is a
    /// folder or absent.
    public func folderProblem(_ device: String) -> String? {
        guard let kind = FolderRemote.kind(layout.deviceDirectory(device)), kind != S_IFDIR else { return nil }
        return "devices/\(device) on the remote is \(FolderRemote.describe(kind)), not a folder; sync does not follow it"
    }

    /// The entry numbers present in a device's folder, ascending (none when it is not a real folder).
    public func entries(of device: String) -> [Int64] {
        guard FolderRemote.kind(layout.devicesDirectory) == S_IFDIR, FolderRemote.kind(layout.deviceDirectory(device)) == S_IFDIR else { return [] }
        return ((try? FileManager.default.contentsOfDirectory(atPath: layout.deviceDirectory(device))) ?? [])
            .compactMap(RemoteLayout.sequence).sorted()
    }

    /// The type of what is at `path` itself (a link is not followed); nil when nothing is.
    static func kind(_ path: String) -> mode_t? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return info.st_mode & S_IFMT
    }

    static func describe(_ kind: mode_t) -> String {
        switch kind {
        case S_IFLNK: "a symbolic link"
        case S_IFREG: "a file"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        default: "a special file"
        }
    }

    /// Makes `path` a real folder: whatever else the remote put under that name (a link, a file) is removed — the
    /// name itself, never what a link points to. Only for folders this device alone writes, or creates.
    func ensureRealFolder(_ path: String) throws {
        if let kind = FolderRemote.kind(path), kind != S_IFDIR { unlink(path) }
        try makeBelowRoot(path)
    }

    /// A shared folder (`devices`, `invites`): created when missing, refused when it is not a real folder.
    func ensureSharedFolder(_ path: String) throws {
        if let kind = FolderRemote.kind(path), kind != S_IFDIR {
            throw SyncFailure("sync folder \(layout.root) holds \((path as NSString).lastPathComponent) as \(FolderRemote.describe(kind)), not a folder")
        }
        try makeBelowRoot(path)
    }

    /// Makes the folders from the root down to `path`, one plain `mkdir` at a time — never the root itself, nor
    /// anything above it: a sync folder that went away during a run (a share unmounted, a folder renamed) must not
    /// come back as an empty local folder, which the next run would take for the remote (and which would fill a
    /// mount point). Gone, it is the run's "sync folder … not found".
    func makeBelowRoot(_ path: String) throws {
        try checkUsable()
        let root = layout.root.hasSuffix("/") ? String(layout.root.dropLast()) : layout.root
        guard path.hasPrefix(root + "/") else { throw SyncFailure("\(path) is not inside the sync folder \(root)") }
        var current = root
        for part in path.dropFirst(root.count + 1).split(separator: "/") {
            current += "/" + part
            if mkdir(current, PrivateFiles.directoryMode) != 0 && errno != EEXIST {
                let code = errno
                try checkUsable()
                throw SyncFailure("cannot create \(current) in the sync folder: \(String(cString: strerror(code)))")
            }
        }
        _ = chmod(path, PrivateFiles.directoryMode)  // mkdir's mode is filtered by the umask; chmod is not
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
            try ensureSharedFolder(layout.devicesDirectory)
            try ensureRealFolder(layout.deviceDirectory(device))
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
            try ensureSharedFolder(layout.invitesDirectory)
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
            try ensureSharedFolder(layout.invitesDirectory)
            try PrivateFiles.atomicWrite(Data(bytes), to: layout.claim(invite, device: device))
        }
    }

    /// The welcome sealed to `device` for an invite; nil when there is none (or it is not a small regular file).
    func readWelcome(_ invite: UUID, device: String) -> [UInt8]? {
        try? read(layout.welcome(invite, device: device), label: "invites/\(invite.lowerText).\(device).welcome",
                  limit: RemoteLayout.maxInviteBytes)
    }

    func writeWelcome(_ invite: UUID, device: String, _ bytes: [UInt8]) throws(SyncFailure) {
        try failing {
            try ensureSharedFolder(layout.invitesDirectory)
            try PrivateFiles.atomicWrite(Data(bytes), to: layout.welcome(invite, device: device))
        }
    }

    func removeWelcome(_ invite: UUID, device: String) {
        try? FileManager.default.removeItem(atPath: layout.welcome(invite, device: device))
    }

    /// The boxes and claims on the remote, by invite (welcomes are left to the device each is sealed to).
    func inviteOffers() -> [UUID: [String]] {
        var found: [UUID: [String]] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: layout.invitesDirectory)) ?? []
        where name.hasSuffix(".box") || name.hasSuffix(".claim") {
            guard let invite = UUID(uuidString: String(name.prefix(36))), name.prefix(36) == invite.lowerText else { continue }
            found[invite, default: []].append(name)
        }
        return found
    }

    /// Removes an invite's box and every claim on it (a welcome stays for the device it is sealed to).
    public func removeInvite(_ invite: UUID) {
        try? FileManager.default.removeItem(atPath: layout.inviteBox(invite))
        let prefix = invite.lowerText + "."
        for name in (try? FileManager.default.contentsOfDirectory(atPath: layout.invitesDirectory)) ?? []
        where name.hasPrefix(prefix) && !name.hasSuffix(".welcome") {
            try? FileManager.default.removeItem(atPath: layout.invitesDirectory + "/" + name)
        }
    }

    // MARK: format 1

    /// Removes every file format 1 wrote (plaintext records, device files, credential batches of every device),
    /// which this version never reads. Returns how many files went. Only real folders under `devices` are entered:
    /// through a link the remote planted, `config` and `credentials` would be someone else's files.
    public func removeFormatOneFiles() -> Int {
        var removed = 0
        let manager = FileManager.default
        guard FolderRemote.kind(layout.devicesDirectory) == S_IFDIR else { return 0 }
        for device in (try? manager.contentsOfDirectory(atPath: layout.devicesDirectory)) ?? [] {
            let folder = layout.deviceDirectory(device)
            guard RemoteLayout.isValidDeviceID(device), FolderRemote.kind(folder) == S_IFDIR else { continue }
            for name in RemoteLayout.formatOneNames {
                let path = folder + "/" + name
                guard let kind = FolderRemote.kind(path) else { continue }
                if kind == S_IFDIR {
                    removed += ((try? manager.subpathsOfDirectory(atPath: path)) ?? []).filter { FolderRemote.kind(path + "/" + $0) == S_IFREG }.count
                } else if kind == S_IFREG {
                    removed += 1
                }
                // A link goes as a link (removeItem never follows one, nor one inside a folder it removes).
                try? manager.removeItem(atPath: path)
            }
            if ((try? manager.contentsOfDirectory(atPath: folder)) ?? ["?"]).isEmpty { try? manager.removeItem(atPath: folder) }
        }
        return removed
    }

    private func failing(_ body: () throws -> Void) throws(SyncFailure) {
        do { try body() } catch let failure as SyncFailure { throw failure } catch {
            throw SyncFailure("cannot write to sync folder \(layout.root): \(error)", hint: "check free space and permissions")
        }
    }
}
