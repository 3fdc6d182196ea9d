// FleetCopy: `sshelf cp` on one logged-in connection, over SFTP — files and (with -r) directory trees, to or from
// the host. Only regular files and directories are copied (a server's names, types and modes are hostile input):
// a device, FIFO or socket is refused with what it is, a file that sends more than its size when opened is refused,
// setuid/setgid/sticky are never carried. Every file is written under a temporary name beside its final one
// (.NAME.sshelf-XXXXXXXX.part, NAME cut to fit) and renamed only once complete; a failure or a stop removes it, and
// one that could not be removed is named. A file that cannot be copied is noted and the rest go on, as with scp.
// Several files are in flight at once (FleetCopyLanes): the walk hands each file to a lane of its own.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfSSH
import ShelfSystem

public struct CopyOptions: Sendable {
    public var recursive: Bool
    public var preserve: Bool
    /// Bytes per read or write call: libssh2 keeps several SFTP requests of it in flight.
    public var chunk = 1 << 20
    /// Files in flight at once, each on an SFTP channel of its own (1: one after another).
    public var lanes = FleetCopyLanes.defaultWidth

    public init(recursive: Bool, preserve: Bool) {
        self.recursive = recursive
        self.preserve = preserve
    }
}

public final class FleetCopy {
    /// A temporary file a failure or a stop could not remove: on the host (it stopped answering) or here.
    public struct Leftover: Sendable, Equatable {
        public var path: String
        public var onHost: Bool
    }

    private let sftp: SftpSession
    private let options: CopyOptions
    /// Whether the copy was asked to stop (checked between blocks and files; the temporary file is removed first).
    private let stop: () -> Bool
    /// Called with each block's byte count as it is copied (from a lane's thread, one call at a time).
    private let progress: (Int) -> Void
    /// Guards the counts, the problems and the leftovers, which the lanes add to.
    private let lock = Lock()
    /// What ended the copy in a lane (a stop, a lost connection): the walk stops at its next step and throws it.
    private var fatal: SSHError?
    /// The lanes of the copy running now (nil between copies).
    private var lanes: FleetCopyLanes?
    public private(set) var files = 0
    public private(set) var bytes: UInt64 = 0
    /// Files and directories not copied, each with why; the copy went on with the rest.
    public private(set) var problems: [String] = []
    public private(set) var leftovers: [Leftover] = []

    /// The permission bits a copy carries: setuid, setgid and sticky never (as scp: a server must not plant a
    /// setuid file here, nor a local one become setuid for the remote login).
    static let permissionBits: UInt32 = 0o777
    /// The longest file name (bytes) the temporary name is cut to (NAME_MAX of Linux's file systems).
    static let nameLimit = 255

    public init(
        _ sftp: SftpSession, options: CopyOptions, stop: @escaping () -> Bool = { false },
        progress: @escaping (Int) -> Void
    ) {
        self.sftp = sftp
        self.options = options
        self.stop = stop
        self.progress = progress
    }

    // MARK: upload

    /// Copies local `sources` to `destination` on the host: into it when it is a directory, else as it (one source).
    public func upload(_ sources: [String], to destination: String) throws(SSHError) {
        let target = destination.isEmpty ? "." : try RemotePaths.home(destination)
        let found = try sftp.stat(target)
        let into = found?.isDirectory ?? false
        if sources.count > 1 && !into {
            throw SSHError(.channelFailed, "\(target) is not a directory on the host, and several sources go into it")
        }
        // DIR/ names a directory, as for scp: one that is missing is made only as the copy of a directory (-r).
        if target.hasSuffix("/") && !into && !(options.recursive && sources.count == 1 && Self.isDirectory(sources[0]))
        {
            throw SSHError(
                .channelFailed,
                found == nil ? "\(target): no such directory on the host" : "\(target) is not a directory")
        }
        try withLanes { () throws(SSHError) in try uploadSources(sources, into: into ? target : nil, as: target) }
    }

    private func uploadSources(_ sources: [String], into folder: String?, as target: String) throws(SSHError) {
        for source in sources {
            try checkStop()
            try each { () throws(SSHError) in
                // A source named by the user is followed when it is a link, as scp does.
                var info = stat()
                guard fstatat(AT_FDCWD, source, &info, 0) == 0 else { throw local("cannot read \(source)") }
                let remote = folder.map { join($0, Self.baseName(source)) } ?? target
                if info.st_mode & S_IFMT == S_IFDIR {
                    guard options.recursive else {
                        throw SSHError(.channelFailed, "\(source) is a directory (copy it with -r)")
                    }
                    try uploadTree(source, to: remote, info: info)
                } else {
                    submit { sftp throws(SSHError) in try self.uploadFile(source, to: remote, on: sftp) }
                }
            }
        }
    }

    private func uploadTree(_ directory: String, to remote: String, info: stat) throws(SSHError) {
        if !(try sftp.stat(remote)?.isDirectory ?? false) {
            try sftp.makeDirectory(remote, mode: UInt32(info.st_mode) & Self.permissionBits | 0o700)
        }
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted() } catch {
            throw SSHError(.channelFailed, "cannot list \(directory): \(error)")
        }
        for name in names {
            try checkStop()
            let path = join(directory, name)
            try each { () throws(SSHError) in
                var entry = stat()
                guard lstat(path, &entry) == 0 else { throw local("cannot read \(path)") }
                switch entry.st_mode & S_IFMT {
                case S_IFDIR: try uploadTree(path, to: join(remote, name), info: entry)
                case S_IFREG:
                    let destination = join(remote, name)
                    submit { sftp throws(SSHError) in try self.uploadFile(path, to: destination, on: sftp) }
                case S_IFLNK:
                    // Inside a tree a link is followed only to a regular file (a link to a directory could loop).
                    var target = stat()
                    if fstatat(AT_FDCWD, path, &target, 0) == 0 && target.st_mode & S_IFMT == S_IFDIR {
                        throw Self.linkToDirectory(path)
                    }
                    let destination = join(remote, name)
                    submit { sftp throws(SSHError) in try self.uploadFile(path, to: destination, on: sftp) }
                default: throw Self.notRegular(path, RegularFile.describe(entry.st_mode))
                }
            }
        }
        if options.preserve {
            // After the files in it: a file renamed into the directory would change its time again.
            lanes?.drain()
            try sftp.setAttributes(remote, Self.attributes(info))
        }
    }

    private func uploadFile(_ path: String, to remote: String, on sftp: SftpSession) throws(SSHError) {
        // Opened without blocking and checked on the descriptor: a FIFO, device or socket is refused, never read.
        let fd: Int32
        do { fd = try RegularFile.open(path) } catch { throw SSHError(.channelFailed, error.description) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw local("cannot read \(path)") }
        let size = UInt64(max(0, info.st_size))
        try checkStop()
        let temporary = Self.temporaryName(for: remote)
        let file = try sftp.create(temporary, mode: UInt32(info.st_mode) & Self.permissionBits, shown: remote)
        do throws(SSHError) {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: options.chunk, alignment: 16)
            defer { buffer.deallocate() }
            var sent: UInt64 = 0
            while true {
                try checkStop()
                let count = read(fd, buffer.baseAddress, buffer.count)
                if count < 0 && errno == EINTR { continue }
                guard count >= 0 else { throw local("cannot read \(path)") }
                if count == 0 { break }
                sent += UInt64(count)
                guard sent <= size else { throw Self.grew(path, size: size) }
                try file.write(UnsafeRawBufferPointer(rebasing: buffer.prefix(count)))
                copied(count)
            }
            try file.finish()
            if options.preserve { try sftp.setAttributes(temporary, Self.attributes(info)) }
            try sftp.rename(temporary, to: remote)
            lock.withLock { files += 1 }
        } catch {
            file.close()
            do { try sftp.removeIfPresent(temporary) } catch {
                lock.withLock { leftovers.append(Leftover(path: temporary, onHost: true)) }
            }
            throw error
        }
    }

    // MARK: download

    /// Copies the host's paths (`~/`, wildcards: RemotePaths) to local `destination`: into it when it is a directory,
    /// else as it (one source).
    public func download(_ patterns: [String], to destination: String) throws(SSHError) {
        var sources: [String] = []
        for pattern in patterns {
            try each { () throws(SSHError) in
                sources += try RemotePaths.expand(pattern.isEmpty ? "." : pattern, in: sftp)
            }
        }
        var info = stat()
        let exists = fstatat(AT_FDCWD, destination, &info, 0) == 0
        let into = exists && info.st_mode & S_IFMT == S_IFDIR
        if sources.count > 1 && !into {
            throw SSHError(.channelFailed, "\(destination) is not a directory here, and several sources go into it")
        }
        var oneTree = false
        if options.recursive && sources.count == 1 && destination.hasSuffix("/") {
            oneTree = try sftp.stat(sources[0])?.isDirectory ?? false
        }
        if destination.hasSuffix("/") && !into && !oneTree && !sources.isEmpty {
            throw SSHError(
                .channelFailed, exists ? "\(destination) is not a directory" : "\(destination): no such directory here")
        }
        try withLanes { () throws(SSHError) in
            try downloadSources(sources, into: into ? destination : nil, as: destination)
        }
    }

    private func downloadSources(_ sources: [String], into folder: String?, as destination: String) throws(SSHError) {
        for source in sources {
            try checkStop()
            let path = source.isEmpty ? "." : source
            try each { () throws(SSHError) in
                // A source named by the user is followed when it is a link, as scp does (stat, not lstat).
                guard let attributes = try sftp.stat(path) else {
                    throw SSHError(.channelFailed, "\(path): no such file or directory on the host")
                }
                let local = folder.map { join($0, Self.baseName(path)) } ?? destination
                if attributes.isDirectory {
                    guard options.recursive else {
                        throw SSHError(.channelFailed, "\(path) is a directory (copy it with -r)")
                    }
                    try downloadTree(path, to: local, attributes: attributes)
                } else {
                    submit { sftp throws(SSHError) in
                        try self.downloadFile(path, to: local, listed: attributes, on: sftp)
                    }
                }
            }
        }
    }

    private func downloadTree(_ remote: String, to directory: String, attributes: SftpAttributes) throws(SSHError) {
        var info = stat()
        if !(fstatat(AT_FDCWD, directory, &info, 0) == 0 && info.st_mode & S_IFMT == S_IFDIR) {
            let permissions = (attributes.permissions ?? 0o755) & Self.permissionBits
            guard mkdir(directory, mode_t(permissions) | 0o700) == 0 else {
                throw local("cannot make the directory \(directory)")
            }
        }
        for (name, entry) in try sftp.list(remote).sorted(by: { $0.name < $1.name }) {
            try checkStop()
            // A name the server made up to reach elsewhere is no entry of this directory.
            guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else { continue }
            let child = join(remote, name)
            try each { () throws(SSHError) in
                var resolved = entry
                // A link is listed as itself (lstat): followed only to a regular file (a link to a directory could
                // loop, or reach out of the tree).
                if entry.isSymbolicLink {
                    guard let target = try sftp.stat(child) else {
                        throw SSHError(.channelFailed, "\(child) is a link to nothing")
                    }
                    if target.isDirectory { throw Self.linkToDirectory(child) }
                    resolved = target
                }
                if resolved.isDirectory {
                    try downloadTree(child, to: join(directory, name), attributes: resolved)
                } else {
                    let local = join(directory, name)
                    let listed = resolved
                    submit { sftp throws(SSHError) in
                        try self.downloadFile(child, to: local, listed: listed, on: sftp)
                    }
                }
            }
        }
        if options.preserve {
            // After the files in it: a read-only directory would refuse them, and each rename changes its time.
            lanes?.drain()
            try setLocal(directory, attributes)
        }
    }

    private func downloadFile(
        _ remote: String, to path: String, listed: SftpAttributes, on sftp: SftpSession
    ) throws(SSHError) {
        guard listed.isRegularFile else { throw Self.notRegular(remote, listed.kind) }
        try checkStop()
        let file = try sftp.openForReading(remote)
        defer { file.close() }
        // What was opened decides, not what the name was a moment ago; its size then bounds what is taken.
        let opened = try file.attributes()
        guard opened.isRegularFile else { throw Self.notRegular(remote, opened.kind) }
        guard let size = opened.size else {
            throw SSHError(.channelFailed, "\(remote): the host did not say its size, so its end cannot be checked")
        }
        let temporary = Self.temporaryName(for: path)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw local("cannot create \(path)") }
        var closed = false
        defer { if !closed { close(fd) } }
        do throws(SSHError) {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: options.chunk, alignment: 16)
            defer { buffer.deallocate() }
            var received: UInt64 = 0
            while true {
                try checkStop()
                // Asks for what is left of the size it had when opened, then for one byte to see its end (or that it
                // grew): libssh2 sends read requests for the whole buffer at once, and a 1 MiB buffer made a 4 KiB
                // file 35 requests, 34 of them answered "end of file" (docs/PERFORMANCE.md, "The file pane").
                let wanted = received < size ? Int(min(UInt64(buffer.count), size - received)) : 1
                let count = try file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer.prefix(wanted)))
                if count == 0 { break }
                received += UInt64(count)
                guard received <= size else { throw Self.grew(remote, size: size) }
                guard FileOutput.writeAll(fd, UnsafeRawBufferPointer(rebasing: buffer.prefix(count))) else {
                    throw local("cannot write \(temporary)")
                }
                copied(count)
            }
            // Without -p a new file gets the remote permissions less this process's umask, as cp and scp do; with
            // -p the permissions as they are. Never setuid, setgid or sticky.
            let mask = umask(0)
            umask(mask)
            let permissions = mode_t((opened.permissions ?? listed.permissions ?? 0o644) & Self.permissionBits)
            guard fchmod(fd, options.preserve ? permissions : permissions & ~mask) == 0 else {
                throw local("cannot set the mode of \(temporary)")
            }
            if options.preserve, let times = Self.times(opened) ?? Self.times(listed) {
                guard futimens(fd, times) == 0 else { throw local("cannot set the times of \(temporary)") }
            }
            guard close(fd) == 0 else {
                closed = true
                throw local("cannot write \(temporary)")
            }
            closed = true
            guard rename(temporary, path) == 0 else { throw local("cannot rename \(temporary) to \(path)") }
            lock.withLock { files += 1 }
        } catch {
            if unlink(temporary) != 0 && errno != ENOENT {
                lock.withLock { leftovers.append(Leftover(path: temporary, onHost: false)) }
            }
            throw error
        }
    }

    private func setLocal(_ path: String, _ attributes: SftpAttributes) throws(SSHError) {
        if let permissions = attributes.permissions, chmod(path, mode_t(permissions & Self.permissionBits)) != 0 {
            throw local("cannot set the mode of \(path)")
        }
        if let times = Self.times(attributes), utimensat(AT_FDCWD, path, times, 0) != 0 {
            throw local("cannot set the times of \(path)")
        }
    }

    // MARK: several files at once

    /// Runs `body` (the walk of the sources) with lanes for its files, and waits for every file before returning.
    private func withLanes(_ body: () throws(SSHError) -> Void) throws(SSHError) {
        let lanes = FleetCopyLanes(sftp, width: options.lanes)
        self.lanes = lanes
        var failure: SSHError?
        do { try body() } catch { failure = error }
        lanes.finish()
        self.lanes = nil
        if let failure { throw failure }
        if let fatal = lock.withLock({ fatal }) { throw fatal }
    }

    /// Hands one file's copy to a lane (given the channel to copy it on). Its failure alone is noted and the copy
    /// goes on; a stop or a lost connection ends the walk at its next step.
    private func submit(_ copy: @escaping (SftpSession) throws(SSHError) -> Void) {
        let run = { [self] (sftp: SftpSession) in
            do throws(SSHError) { try copy(sftp) } catch {
                let ends = error.kind == .cancelled || stop() || sftp.lost
                lock.withLock {
                    if !ends {
                        problems.append(error.message)
                    } else if fatal == nil {
                        fatal = error
                    }
                }
            }
        }
        guard let lanes else { return run(sftp) }
        lanes.submit(run)
    }

    /// Counts one block copied, and says so (one lane at a time).
    private func copied(_ count: Int) {
        lock.withLock {
            bytes += UInt64(count)
            progress(count)
        }
    }

    // MARK: going on, stopping

    /// Runs one source's or one entry's copy: when that alone fails (refused, or the server said no) it is noted and
    /// the copy goes on; a stop or a lost connection ends the whole copy.
    private func each(_ body: () throws(SSHError) -> Void) throws(SSHError) {
        do { try body() } catch {
            if error.kind == .cancelled || stop() || sftp.lost { throw error }
            lock.withLock { problems.append(error.message) }
        }
    }

    private func checkStop() throws(SSHError) {
        if stop() { throw SSHError(.cancelled, "stopped") }
        if let fatal = lock.withLock({ fatal }) { throw fatal }
    }

    static func notRegular(_ path: String, _ kind: String) -> SSHError {
        SSHError(.channelFailed, "\(path) is \(kind), not a regular file")
    }

    static func linkToDirectory(_ path: String) -> SSHError {
        SSHError(.channelFailed, "\(path) is a link to a directory, not followed inside a tree")
    }

    static func grew(_ path: String, size: UInt64) -> SSHError {
        SSHError(
            .channelFailed,
            "\(path) gave more than the \(size) bytes it had when opened (it grows, or is not a plain file): not copied"
        )
    }

    // MARK: names

    /// `.NAME.sshelf-XXXXXXXX.part` in the same directory as `path` (so the rename stays on one file system), NAME
    /// cut (at a character) so the whole stays within 255 bytes: a name that fits is never refused for its temporary.
    static func temporaryName(for path: String) -> String {
        let hex = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let suffix = ".sshelf-" + String(repeating: "0", count: 8 - hex.count) + hex + ".part"
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[...$0]) } ?? ""
        var name = Substring(slash.map { String(path[path.index(after: $0)...]) } ?? path)
        while name.utf8.count > nameLimit - 1 - suffix.utf8.count { name = name.dropLast() }
        return directory + "." + name + suffix
    }

    static func baseName(_ path: String) -> String {
        let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        return trimmed.split(separator: "/").last.map(String.init) ?? trimmed
    }

    private func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    private static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return fstatat(AT_FDCWD, path, &info, 0) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    private func local(_ doing: String) -> SSHError {
        SSHError(.channelFailed, "\(doing): \(String(cString: strerror(errno)))")
    }

    static func attributes(_ info: stat) -> SftpAttributes {
        SftpAttributes(
            mode: UInt32(info.st_mode) & permissionBits, accessTime: UInt64(info.st_atim.tv_sec),
            modificationTime: UInt64(info.st_mtim.tv_sec))
    }

    static func times(_ attributes: SftpAttributes) -> [timespec]? {
        guard let access = attributes.accessTime, let modification = attributes.modificationTime else { return nil }
        return [timespec(tv_sec: Int(access), tv_nsec: 0), timespec(tv_sec: Int(modification), tv_nsec: 0)]
    }
}
