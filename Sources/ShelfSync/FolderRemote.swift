// FolderRemote: a sync remote that is a directory (kept in step by Syncthing, Nextcloud, Dropbox, NFS, sshfs, or a
// git working copy). Checks that it is usable and says exactly why not; reads files with bounds (regular files
// only, never through a symlink); writes each file once (temp file, fsync, rename, never over an existing one).
// Below its root nothing is followed: each operation opens the root once and works through folder descriptors
// (RemoteDirectory), so a link (or a special file) where sync keeps a folder is reported or, for this device's own
// folder, replaced, and a folder swapped for a link mid-operation cannot point a removal, a write or a chmod outside
// the remote. Listings are bounded (a flooded remote is a fallback reason, not a slow run).
import FoundationEssentials
import Glibc
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
            throw SyncFailure(
                "sync folder \(root) not found",
                hint: "mount or create it, or change it with 'sshelf sync enable --folder PATH'")
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw SyncFailure("sync folder \(root) is not a directory", hint: "point sync at a folder")
        }
        guard access(root, W_OK | X_OK) == 0 else {
            throw SyncFailure(
                "sync folder \(root) is not writable",
                hint: "check its owner and permissions (and that it is not mounted read-only)")
        }
    }

    /// The root, checked and opened for one operation: everything the operation does below it goes through this
    /// descriptor (RemoteDirectory), never through a path again. Gone, it is the run's "not found" — the root is
    /// never made again.
    func openRoot() throws(SyncFailure) -> RemoteDirectory {
        try checkUsable()
        guard let root = RemoteDirectory.root(layout.root) else {
            try checkUsable()
            throw SyncFailure("sync folder \(layout.root) is not a directory", hint: "point sync at a folder")
        }
        return root
    }

    /// A folder sync shares with the other devices (`devices`, `invites`): nil when absent; refused when the remote
    /// put something else under its name.
    func shared(_ root: RemoteDirectory, _ name: String) throws(SyncFailure) -> RemoteDirectory? {
        if let kind = root.kind(name), kind != S_IFDIR {
            throw SyncFailure(
                "sync folder \(layout.root) holds '\(name)' as \(FolderRemote.describe(kind)), not a folder; sync "
                    + "does not follow it",
                hint: "sshelf never writes one: remove \(layout.root)/\(name) (the devices write their files again)")
        }
        return root.folder(name)
    }

    /// Checks the folder is usable, that sync's own folders in it are real folders, and that it is not from a newer
    /// format. Returns the format it holds: 0 for a remote nothing was written to yet.
    public func check() throws(SyncFailure) -> Int {
        let root = try openRoot()
        for name in ["devices", "invites"] { _ = try shared(root, name) }
        guard root.kind("format.json") != nil else { return 0 }
        guard let data = try? root.read("format.json", label: "format.json", limit: RemoteLayout.maxFormatBytes),
            let format = (try? JSONDecoder().decode(FormatFile.self, from: Data(data)))?.format,
            format >= 1
        else {
            throw SyncFailure(
                "sync folder \(layout.root) has an unreadable format.json", hint: "is this an sshelf sync folder?")
        }
        if format > RemoteLayout.format {
            throw SyncFailure(
                "remote format \(format) is newer than this program (\(RemoteLayout.format))",
                hint: "upgrade sshelf on this device")
        }
        return format
    }

    /// Writes format.json for this format (deterministic bytes: two devices writing it at once agree).
    public func writeFormat() throws(SyncFailure) {
        let data = Array("{\"format\":\(RemoteLayout.format)}\n".utf8)
        let root = try openRoot()
        guard (try? root.read("format.json", label: "format.json", limit: RemoteLayout.maxFormatBytes)) != data else {
            return
        }
        try root.write("format.json", data, replace: true)
    }

    /// Device folders on the remote (any name that could be a device id; a link under such a name too, so that it
    /// is reported: see `folderProblem`). More than `RemoteLayout.maxDeviceFolders` names stop the run with that
    /// reason: a remote flooded with folders must not make every run read them all.
    public func deviceFolders() throws(SyncFailure) -> [String] {
        guard let devices = try shared(try openRoot(), "devices") else { return [] }
        return try devices.names(limit: RemoteLayout.maxDeviceFolders, what: "device folders").filter(
            RemoteLayout.isValidDeviceID
        ).sorted()
    }

    /// Why a device's folder cannot be read: something other than a real folder under its name. Nil when it is a
    /// folder or absent.
    public func folderProblem(_ device: String) -> String? {
        guard let devices = try? shared(try openRoot(), "devices"), let kind = devices.kind(device), kind != S_IFDIR
        else { return nil }
        return
            "devices/\(device) on the remote is \(FolderRemote.describe(kind)), not a folder; sync does not follow it"
    }

    /// A device's folder, opened (nil when it is not a real folder).
    func deviceFolder(_ device: String) throws(SyncFailure) -> RemoteDirectory? {
        guard RemoteLayout.isValidDeviceID(device) else { return nil }
        return try shared(try openRoot(), "devices")?.folder(device)
    }

    /// The entry numbers present in a device's folder, ascending (none when it is not a real folder). More than
    /// `RemoteLayout.maxEntryFiles` names is a failure with that reason.
    public func entries(of device: String) throws(SyncFailure) -> [Int64] {
        guard let folder = try deviceFolder(device) else { return [] }
        return try folder.names(limit: RemoteLayout.maxEntryFiles, what: "files").compactMap(RemoteLayout.sequence)
            .sorted()
    }

    /// Size, modification time and inode of one of this device's entry files ("" when there is none).
    func signature(_ device: String, _ seq: Int64) -> String {
        var info = stat()
        guard let folder = try? deviceFolder(device),
            fstatat(folder.fd, RemoteLayout.entryName(seq), &info, AT_SYMLINK_NOFOLLOW) == 0
        else { return "" }
        return "\(seq):\(info.st_size):\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec):\(info.st_ino)"
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

    /// Whether the remote holds any entry at all (then it belongs to a sync group).
    public func hasEntries() throws(SyncFailure) -> Bool {
        for device in try deviceFolders() where !(try entries(of: device)).isEmpty { return true }
        return false
    }

    public func readEntry(_ device: String, _ seq: Int64) throws(SyncFailure) -> [UInt8] {
        let label = "devices/\(device)/\(RemoteLayout.entryName(seq))"
        guard let folder = try deviceFolder(device) else { throw SyncFailure("\(label) is missing") }
        return try folder.read(RemoteLayout.entryName(seq), label: label, limit: RemoteLayout.maxEntryBytes)
    }

    /// Writes this device's entry `seq`; refuses to replace a file already there (an entry is written once). This
    /// device's own folder is made a real folder first (a link or file the remote put under its name goes, never
    /// what a link points to).
    public func writeEntry(_ device: String, _ seq: Int64, _ bytes: [UInt8]) throws(SyncFailure) {
        guard bytes.count <= RemoteLayout.maxEntryBytes else {
            throw SyncFailure(
                "this device's next entry would be \(bytes.count / 1024 / 1024) MiB, more than the "
                    + "\(RemoteLayout.maxEntryBytes / 1024 / 1024) MiB an entry may hold; nothing was sent",
                hint: "no device would read it: sync holds a store of up to about 100,000 hosts")
        }
        let root = try openRoot()
        _ = try shared(root, "devices")
        let folder = try root.makeFolder("devices", replacing: false).makeFolder(device, replacing: true)
        if folder.kind(RemoteLayout.entryName(seq)) != nil {
            throw SyncFailure(
                "devices/\(device)/\(RemoteLayout.entryName(seq)) already exists; an entry is never written twice")
        }
        try folder.write(RemoteLayout.entryName(seq), bytes, replace: false)
    }

    /// Removes one of this device's own files (compaction, or a file it did not write).
    public func removeEntry(_ device: String, _ seq: Int64) {
        (try? deviceFolder(device))??.remove(RemoteLayout.entryName(seq))
    }

    // MARK: invites

    func invites() throws(SyncFailure) -> RemoteDirectory? { try shared(try openRoot(), "invites") }

    func makeInvites() throws(SyncFailure) -> RemoteDirectory {
        let root = try openRoot()
        _ = try shared(root, "invites")
        return try root.makeFolder("invites", replacing: false)
    }

    static func boxName(_ invite: UUID) -> String { "\(invite.lowerText).box" }
    static func claimName(_ invite: UUID, _ device: String) -> String { "\(invite.lowerText).\(device).claim" }
    static func welcomeName(_ invite: UUID, _ device: String) -> String { "\(invite.lowerText).\(device).welcome" }

    /// The names in `invites`, bounded like device folders.
    func inviteNames() -> (folder: RemoteDirectory, names: [String])? {
        guard let folder = try? invites(),
            let names = try? folder.names(limit: RemoteLayout.maxInviteFiles, what: "invite files")
        else { return nil }
        return (folder, names)
    }

    public func readInviteBox(_ invite: UUID) throws(SyncFailure) -> [UInt8] {
        let name = FolderRemote.boxName(invite)
        guard let folder = try invites() else { throw SyncFailure("invites/\(name) is missing") }
        return try folder.read(name, label: "invites/\(name)", limit: RemoteLayout.maxInviteBytes)
    }

    public func hasInviteBox(_ invite: UUID) -> Bool { (try? invites())??.kind(FolderRemote.boxName(invite)) != nil }

    public func writeInviteBox(_ invite: UUID, _ bytes: [UInt8]) throws(SyncFailure) {
        try makeInvites().write(FolderRemote.boxName(invite), bytes, replace: true)
    }

    /// The devices that left a claim on an invite, with the claim's bytes (unreadable claims are skipped).
    public func claims(_ invite: UUID) -> [(device: String, bytes: [UInt8])] {
        guard let (folder, names) = inviteNames() else { return [] }
        let prefix = invite.lowerText + "."
        return names.sorted().compactMap { name in
            guard name.hasPrefix(prefix), name.hasSuffix(".claim") else { return nil }
            let device = String(name.dropFirst(prefix.count).dropLast(6))
            guard RemoteLayout.isValidDeviceID(device),
                let bytes = try? folder.read(name, label: "invites/\(name)", limit: RemoteLayout.maxInviteBytes)
            else { return nil }
            return (device, bytes)
        }
    }

    public func writeClaim(_ invite: UUID, device: String, _ bytes: [UInt8]) throws(SyncFailure) {
        try makeInvites().write(FolderRemote.claimName(invite, device), bytes, replace: true)
    }

    /// The welcome sealed to `device` for an invite; nil when there is none (or it is not a small regular file).
    func readWelcome(_ invite: UUID, device: String) -> [UInt8]? {
        let name = FolderRemote.welcomeName(invite, device)
        return try? invites()?.read(name, label: "invites/\(name)", limit: RemoteLayout.maxInviteBytes)
    }

    func writeWelcome(_ invite: UUID, device: String, _ bytes: [UInt8]) throws(SyncFailure) {
        try makeInvites().write(FolderRemote.welcomeName(invite, device), bytes, replace: true)
    }

    func removeWelcome(_ invite: UUID, device: String) {
        (try? invites())??.remove(FolderRemote.welcomeName(invite, device))
    }

    /// The boxes and claims on the remote, by invite (welcomes are left to the device each is sealed to).
    func inviteOffers() -> [UUID: [String]] {
        var found: [UUID: [String]] = [:]
        for name in inviteNames()?.names ?? [] where name.hasSuffix(".box") || name.hasSuffix(".claim") {
            guard let invite = UUID(uuidString: String(name.prefix(36))), name.prefix(36) == invite.lowerText else {
                continue
            }
            found[invite, default: []].append(name)
        }
        return found
    }

    /// Removes an invite's box and every claim on it (a welcome stays for the device it is sealed to).
    public func removeInvite(_ invite: UUID) {
        guard let (folder, names) = inviteNames() else { return }
        let prefix = invite.lowerText + "."
        for name in names where name.hasPrefix(prefix) && !name.hasSuffix(".welcome") { folder.remove(name) }
    }

    // MARK: format 1

    /// Removes every file format 1 wrote (plaintext records, device files, credential batches of every device),
    /// which this version never reads. Returns how many files went. Each device folder is opened once, without
    /// following a link, and everything is removed through that descriptor: a folder swapped for a link after it
    /// was listed is either not opened at all or is the very remote folder that was opened — never another one.
    public func removeFormatOneFiles() -> Int {
        guard let devices = try? shared(try openRoot(), "devices"),
            let names = try? devices.names(limit: RemoteLayout.maxDeviceFolders, what: "device folders")
        else { return 0 }
        var removed = 0
        for device in names where RemoteLayout.isValidDeviceID(device) {
            guard let folder = devices.folder(device) else { continue }
            for name in RemoteLayout.formatOneNames.sorted() { removed += folder.remove(name) }
            // Only an empty real folder goes (a link under the name is not a folder: AT_REMOVEDIR refuses it).
            if ((try? folder.names(limit: 1, what: "files")) ?? ["?"]).isEmpty {
                _ = unlinkat(devices.fd, device, AT_REMOVEDIR)
            }
        }
        return removed
    }
}

/// format.json: only its format number is read.
private struct FormatFile: Decodable {
    var format: Int
}
