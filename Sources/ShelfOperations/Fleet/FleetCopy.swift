// FleetCopy: `sshelf cp` on one logged-in connection, over SFTP — files and (with -r) directory trees, to or from
// the host. Every file is written under a temporary name beside its final one (.NAME.sshelf-XXXXXXXX.part) and
// renamed only once complete, so an interrupted copy never leaves a partial file under the final name; -p keeps
// permissions and access/modification times. Local files are read and written by this process's user.
import FoundationEssentials
import Glibc
import ShelfSSH

public struct CopyOptions: Sendable {
    public var recursive: Bool
    public var preserve: Bool
    /// Bytes per read or write call: libssh2 keeps several SFTP requests of it in flight.
    public var chunk = 1 << 20

    public init(recursive: Bool, preserve: Bool) {
        self.recursive = recursive
        self.preserve = preserve
    }
}

public final class FleetCopy {
    private let sftp: SftpSession
    private let options: CopyOptions
    /// Called with each block's byte count as it is copied (from the copying thread).
    private let progress: (Int) -> Void
    public private(set) var files = 0
    public private(set) var bytes: UInt64 = 0

    public init(_ sftp: SftpSession, options: CopyOptions, progress: @escaping (Int) -> Void) {
        self.sftp = sftp
        self.options = options
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
        for source in sources {
            var info = stat()
            guard fstatat(AT_FDCWD, source, &info, 0) == 0 else { throw local("cannot read \(source)") }
            let remote = into ? join(target, Self.baseName(source)) : target
            if info.st_mode & S_IFMT == S_IFDIR {
                guard options.recursive else {
                    throw SSHError(.channelFailed, "\(source) is a directory (copy it with -r)")
                }
                try uploadTree(source, to: remote, info: info)
            } else {
                try uploadFile(source, to: remote, info: info)
            }
        }
    }

    private func uploadTree(_ directory: String, to remote: String, info: stat) throws(SSHError) {
        if !(try sftp.stat(remote)?.isDirectory ?? false) {
            try sftp.makeDirectory(remote, mode: UInt32(info.st_mode & 0o777) | 0o700)
        }
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted() } catch {
            throw SSHError(.channelFailed, "cannot list \(directory): \(error)")
        }
        for name in names {
            let path = join(directory, name)
            var entry = stat()
            guard fstatat(AT_FDCWD, path, &entry, 0) == 0 else { throw local("cannot read \(path)") }
            if entry.st_mode & S_IFMT == S_IFDIR {
                try uploadTree(path, to: join(remote, name), info: entry)
            } else {
                try uploadFile(path, to: join(remote, name), info: entry)
            }
        }
        if options.preserve { try sftp.setAttributes(remote, Self.attributes(info)) }
    }

    private func uploadFile(_ path: String, to remote: String, info: stat) throws(SSHError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw local("cannot open \(path)") }
        defer { close(fd) }
        let temporary = Self.temporaryName(for: remote)
        let file = try sftp.create(temporary, mode: UInt32(info.st_mode & 0o777), shown: remote)
        do throws(SSHError) {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: options.chunk, alignment: 16)
            defer { buffer.deallocate() }
            while true {
                let count = read(fd, buffer.baseAddress, buffer.count)
                if count < 0 && errno == EINTR { continue }
                guard count >= 0 else { throw local("cannot read \(path)") }
                if count == 0 { break }
                try file.write(UnsafeRawBufferPointer(rebasing: buffer.prefix(count)))
                bytes += UInt64(count)
                progress(count)
            }
            try file.finish()
            if options.preserve { try sftp.setAttributes(temporary, Self.attributes(info)) }
            try sftp.rename(temporary, to: remote)
            files += 1
        } catch {
            file.close()
            try? sftp.unlink(temporary)
            throw error
        }
    }

    // MARK: download

    /// Copies the host's paths (`~/`, wildcards: RemotePaths) to local `destination`: into it when it is a directory,
    /// else as it (one source).
    public func download(_ patterns: [String], to destination: String) throws(SSHError) {
        var sources: [String] = []
        for pattern in patterns { sources += try RemotePaths.expand(pattern.isEmpty ? "." : pattern, in: sftp) }
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
        if destination.hasSuffix("/") && !into && !oneTree {
            throw SSHError(
                .channelFailed, exists ? "\(destination) is not a directory" : "\(destination): no such directory here")
        }
        for source in sources {
            let path = source.isEmpty ? "." : source
            guard let attributes = try sftp.stat(path) else {
                throw SSHError(.channelFailed, "\(path): no such file or directory on the host")
            }
            let local = into ? join(destination, Self.baseName(path)) : destination
            if attributes.isDirectory {
                guard options.recursive else {
                    throw SSHError(.channelFailed, "\(path) is a directory (copy it with -r)")
                }
                try downloadTree(path, to: local, attributes: attributes)
            } else {
                try downloadFile(path, to: local, attributes: attributes)
            }
        }
    }

    private func downloadTree(_ remote: String, to directory: String, attributes: SftpAttributes) throws(SSHError) {
        var info = stat()
        if !(fstatat(AT_FDCWD, directory, &info, 0) == 0 && info.st_mode & S_IFMT == S_IFDIR) {
            guard mkdir(directory, mode_t(attributes.permissions ?? 0o755) | 0o700) == 0 else {
                throw local("cannot make the directory \(directory)")
            }
        }
        for (name, entry) in try sftp.list(remote).sorted(by: { $0.name < $1.name }) {
            guard !name.contains("/") else { continue }
            let child = join(remote, name)
            // A symbolic link is listed as itself: its target decides (as scp -r follows links).
            let resolved =
                entry.mode.map { $0 & 0o170000 == 0o120000 } == true ? (try sftp.stat(child) ?? entry) : entry
            if resolved.isDirectory {
                try downloadTree(child, to: join(directory, name), attributes: resolved)
            } else {
                try downloadFile(child, to: join(directory, name), attributes: resolved)
            }
        }
        if options.preserve { try setLocal(directory, attributes) }
    }

    private func downloadFile(_ remote: String, to path: String, attributes: SftpAttributes) throws(SSHError) {
        let file = try sftp.openForReading(remote)
        defer { file.close() }
        let temporary = Self.temporaryName(for: path)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw local("cannot create \(path)") }
        var closed = false
        defer { if !closed { close(fd) } }
        do throws(SSHError) {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: options.chunk, alignment: 16)
            defer { buffer.deallocate() }
            while true {
                let count = try file.read(into: buffer)
                if count == 0 { break }
                guard Self.writeAll(fd, UnsafeRawBufferPointer(rebasing: buffer.prefix(count))) else {
                    throw local("cannot write \(temporary)")
                }
                bytes += UInt64(count)
                progress(count)
            }
            // Without -p a new file gets the remote permissions less this process's umask, as cp and scp do.
            let mask = umask(0)
            umask(mask)
            let permissions = mode_t(attributes.permissions ?? 0o644)
            guard fchmod(fd, options.preserve ? permissions : permissions & ~mask) == 0 else {
                throw local("cannot set the mode of \(temporary)")
            }
            if options.preserve, let times = Self.times(attributes) {
                guard futimens(fd, times) == 0 else { throw local("cannot set the times of \(temporary)") }
            }
            guard close(fd) == 0 else {
                closed = true
                throw local("cannot write \(temporary)")
            }
            closed = true
            guard rename(temporary, path) == 0 else { throw local("cannot rename \(temporary) to \(path)") }
            files += 1
        } catch {
            unlink(temporary)
            throw error
        }
    }

    private func setLocal(_ path: String, _ attributes: SftpAttributes) throws(SSHError) {
        if let permissions = attributes.permissions, chmod(path, mode_t(permissions)) != 0 {
            throw local("cannot set the mode of \(path)")
        }
        if let times = Self.times(attributes), utimensat(AT_FDCWD, path, times, 0) != 0 {
            throw local("cannot set the times of \(path)")
        }
    }

    // MARK: names

    /// `.NAME.sshelf-XXXXXXXX.part` in the same directory as `path` (so the rename stays on one file system).
    static func temporaryName(for path: String) -> String {
        let random = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        return directory + "." + name + ".sshelf-" + random + ".part"
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
            mode: UInt32(info.st_mode & 0o7777), accessTime: UInt64(info.st_atim.tv_sec),
            modificationTime: UInt64(info.st_mtim.tv_sec))
    }

    static func times(_ attributes: SftpAttributes) -> [timespec]? {
        guard let access = attributes.accessTime, let modification = attributes.modificationTime else { return nil }
        return [timespec(tv_sec: Int(access), tv_nsec: 0), timespec(tv_sec: Int(modification), tv_nsec: 0)]
    }

    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }
}
