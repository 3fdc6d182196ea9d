// DeviceKey: the random key file that binds the vault to this device (`$XDG_STATE_HOME/sshelf/device.key`,
// 0600, never synced or exported). Created once, never rewritten; a loose or foreign file is refused.
import FoundationEssentials
import ShelfSystem
#if canImport(Glibc)
import Glibc
#endif

enum DeviceKey {
    /// "sshelf-device-key" v1, then the 32 key bytes.
    static let magic = Array("sshelf-device-key\u{1}".utf8)
    static var fileLength: Int { magic.count + Sodium.keyLength }

    static func exists(_ path: String) -> Bool { PrivateFiles.mode(of: path) != nil }

    /// Reads the key; refuses a file that group or others can access or that another user owns.
    static func load(_ path: String) throws(VaultError) -> SecretBytes {
        let fd: Int32
        do {
            // Not blocking, checked with fstat: a FIFO or device in its place is refused at once, not waited on.
            fd = try RegularFile.open(path, followLinks: false)
        } catch {
            switch error.kind {
            case .missing:
                throw VaultError(
                    .unavailable, "the device key \(path) is missing, so this vault cannot be opened",
                    hint:
                        "the vault only opens on the device that made it; restore device.key from the same backup, or "
                        + "move vault.sqlite aside and run 'sshelf vault init'")
            case .notRegular(let what):
                throw VaultError(
                    .unavailable,
                    "the device key \(path) is \(what), not a regular file, so this vault cannot be opened",
                    hint: "sshelf reads its device key only from a plain file: move this aside and restore "
                        + "device.key from a backup")
            case .tooLarge, .unreadable:
                throw VaultError(.unavailable, "cannot open the device key: \(error)")
            }
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw VaultError(.unavailable, "cannot inspect \(path)") }
        try refuseLoose(path, info)
        guard info.st_size == fileLength else {
            throw VaultError(
                .unavailable, "the device key \(path) is not an sshelf device key (wrong length)",
                hint: "sshelf will not replace it; restore it from a backup")
        }
        let raw = SecretBytes(count: fileLength)
        var offset = 0
        while offset < fileLength {
            let got = raw.withBytes { pointer, _ in read(fd, pointer + offset, fileLength - offset) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { throw VaultError(.unavailable, "cannot read the device key \(path)") }
            offset += got
        }
        let header = raw.withUnsafeBytes { Array($0.prefix(magic.count)) }
        guard header == magic else {
            throw VaultError(
                .unavailable, "the device key \(path) is not an sshelf device key",
                hint: "sshelf will not replace it; restore it from a backup")
        }
        let key = SecretBytes(count: Sodium.keyLength)
        key.withUnsafeMutableBytes { out in
            raw.withUnsafeBytes { out.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[magic.count...])) }
        }
        return key
    }

    /// Creates a fresh key unless one exists (two processes racing both end up with the winner's key:
    /// the file is written aside and hard-linked into place, which fails rather than replaces).
    static func create(_ path: String) throws(VaultError) {
        let temp = "\(path).new-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, PrivateFiles.fileMode)
        guard fd >= 0 else {
            throw VaultError(.unavailable, "cannot create \(temp): \(String(cString: strerror(errno)))")
        }
        defer { unlink(temp) }
        _ = fchmod(fd, PrivateFiles.fileMode)  // open's mode passed through the umask
        let key = Sodium.randomKey()
        let content = SecretBytes.joined([SecretBytes(magic), key])
        var ok = content.withBytes { pointer, count in
            var offset = 0
            while offset < count {
                let written = write(fd, pointer + offset, count - offset)
                if written < 0 && errno == EINTR { continue }
                if written <= 0 { return false }
                offset += written
            }
            return true
        }
        ok = ok && fsync(fd) == 0
        close(fd)
        guard ok else { throw VaultError(.unavailable, "cannot write the device key \(path)") }
        if link(temp, path) != 0 && errno != EEXIST {
            throw VaultError(.unavailable, "cannot create the device key \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// The rule ssh applies to private keys: ours alone, nobody else may read or write it.
    static func refuseLoose(_ path: String, _ info: stat) throws(VaultError) {
        if info.st_mode & 0o077 != 0 {
            throw VaultError(
                .permissions,
                "\(path) is accessible by other users (mode \(String(info.st_mode & 0o777, radix: 8)))",
                hint: "run: chmod 600 \(path)   (and check nobody copied it)")
        }
        if info.st_uid != geteuid() {
            throw VaultError(.permissions, "\(path) belongs to another user", hint: "sshelf opens only files you own")
        }
    }
}
