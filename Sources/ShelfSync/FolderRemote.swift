// FolderRemote: a sync remote that is a directory (kept in step by Syncthing, Nextcloud, Dropbox, NFS or
// sshfs). Checks that it is usable and says exactly why not; reads other devices' batches with bounds;
// writes this device's batches atomically (temp file, fsync, rename) so a reader never sees half a file.
import Foundation
import ShelfCore
import ShelfSystem

public struct FolderRemote: Sendable {
    public let layout: RemoteLayout

    public init(path: String) { layout = RemoteLayout(root: path) }

    /// Checks the folder exists, is a directory, is writable, and is not from a newer format.
    public func check() throws(SyncFailure) {
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
        if let data = FileManager.default.contents(atPath: layout.formatFile) {
            guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let format = object["format"] as? Int else {
                throw SyncFailure("sync folder \(root) has an unreadable format.json", hint: "is this an sshelf sync folder?")
            }
            if format > RemoteLayout.format {
                throw SyncFailure("remote format \(format) is newer than this program (\(RemoteLayout.format))", hint: "upgrade sshelf on this device")
            }
        }
    }

    /// Creates format.json and this device's folder if missing.
    public func prepare(device: DeviceInfo) throws(SyncFailure) {
        do {
            if !FileManager.default.fileExists(atPath: layout.formatFile) {
                // Deterministic content: two devices creating it at once write identical bytes.
                try PrivateFiles.atomicWrite(Data("{\"format\":\(RemoteLayout.format)}\n".utf8), to: layout.formatFile)
            }
            try PrivateFiles.ensureDirectory(layout.configDirectory(device.id))
            let data = try ShelfJSON.encoder().encode(device)
            if FileManager.default.contents(atPath: layout.deviceFile(device.id)) != data {
                try PrivateFiles.atomicWrite(data, to: layout.deviceFile(device.id))
            }
        } catch {
            throw SyncFailure("cannot write to sync folder \(layout.root): \(error)", hint: "check free space and permissions")
        }
    }

    /// Device folders other than ours, each with its info or the reason it is not trusted.
    public func otherDevices(except own: String) -> [(folder: String, info: Result<DeviceInfo, SyncFailure>)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: layout.devicesDirectory)) ?? []
        return names.sorted().filter { $0 != own && !$0.hasPrefix(".") }.map { folder in
            guard RemoteLayout.isValidDeviceID(folder) else {
                return (folder, .failure(SyncFailure("devices/\(folder): not a device id")))
            }
            guard let data = FileManager.default.contents(atPath: layout.deviceFile(folder)),
                  let info = try? ShelfJSON.decoder().decode(DeviceInfo.self, from: data) else {
                return (folder, .failure(SyncFailure("devices/\(folder)/device.json missing or unreadable")))
            }
            guard info.id == folder else {
                return (folder, .failure(SyncFailure("devices/\(folder)/device.json claims to be device \(info.id); ignored")))
            }
            return (folder, .success(info))
        }
    }

    /// Batch file names of a device, in order.
    public func batches(of device: String, in track: RemoteLayout.Track = .config) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: layout.directory(device, track))) ?? []
        return names.filter { RemoteLayout.sequence(of: $0, extension: track.fileExtension) != nil }.sorted()
    }

    func nextSequence(of device: String, in track: RemoteLayout.Track) -> Int {
        (batches(of: device, in: track).compactMap { RemoteLayout.sequence(of: $0, extension: track.fileExtension) }.max() ?? 0) + 1
    }

    /// The bytes of one batch file, bounded; a symlink or special file is refused.
    func readFile(device: String, in track: RemoteLayout.Track, name: String) throws(SyncFailure) -> [UInt8] {
        let path = layout.directory(device, track) + "/" + name
        let label = "devices/\(device)/\(track.rawValue)/\(name)"
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { throw SyncFailure("\(label): not a regular file") }
        guard info.st_size <= RemoteLayout.maxBatchBytes else {
            throw SyncFailure("\(label): larger than \(RemoteLayout.maxBatchBytes / 1024 / 1024) MiB")
        }
        guard let data = FileManager.default.contents(atPath: path) else { throw SyncFailure("\(label): unreadable") }
        return Array(data)
    }

    func writeFile(_ data: Data, device: String, in track: RemoteLayout.Track, name: String) throws(SyncFailure) {
        do {
            try PrivateFiles.ensureDirectory(layout.directory(device, track))
            try PrivateFiles.atomicWrite(data, to: layout.directory(device, track) + "/" + name)
        } catch {
            throw SyncFailure("cannot write to sync folder \(layout.root): \(error)", hint: "check free space and permissions")
        }
    }

    /// Reads one batch; every record must be stamped by the device whose folder holds it.
    public func readBatch(device: String, name: String) throws(SyncFailure) -> [SyncRecord] {
        let label = "devices/\(device)/config/\(name)"
        let data = Data(try readFile(device: device, in: .config, name: name))
        guard data.last == UInt8(ascii: "\n") else { throw SyncFailure("\(label): truncated (no final newline)") }
        let decoder = ShelfJSON.decoder()
        var records: [SyncRecord] = []
        for (index, line) in data.split(separator: UInt8(ascii: "\n")).enumerated() {
            let record: SyncRecord
            do { record = try decoder.decode(SyncRecord.self, from: Data(line)) } catch {
                throw SyncFailure("\(label): line \(index + 1) is not a valid record (\(Self.brief(error)))")
            }
            guard record.stamp.device == device else {
                throw SyncFailure("\(label): line \(index + 1) claims device \(record.stamp.device); ignored")
            }
            records.append(record)
        }
        return records
    }

    static func brief(_ error: Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error { return context.debugDescription }
        return "malformed JSON"
    }

    /// Writes this device's next batch; returns its name.
    public func writeBatch(_ records: [SyncRecord], device: String) throws(SyncFailure) -> String {
        let next = nextSequence(of: device, in: .config)
        let name = RemoteLayout.batchName(next)
        var data = Data()
        let encoder = ShelfJSON.encoder()
        do {
            for record in records {
                data.append(try encoder.encode(record))
                data.append(UInt8(ascii: "\n"))
            }
            try PrivateFiles.atomicWrite(data, to: layout.configDirectory(device) + "/" + name)
        } catch {
            throw SyncFailure("cannot write to sync folder \(layout.root): \(error)", hint: "check free space and permissions")
        }
        return name
    }
}
