// RemoteLayout: the shape of a sync remote. `format.json` at the top; each device writes only
// `devices/<device-id>/` — `device.json` and immutable batch files `config/<seq>.jsonl` — so no sync tool or
// git merge ever sees two writers of one file.
import Foundation

public struct RemoteLayout: Sendable {
    /// The remote format this program writes and understands.
    public static let format = 1
    /// A batch larger than this is not read (a remote is not trusted to be small).
    public static let maxBatchBytes = 64 * 1024 * 1024

    public let root: String

    public init(root: String) { self.root = root }

    public var formatFile: String { root + "/format.json" }
    public var devicesDirectory: String { root + "/devices" }
    public func deviceDirectory(_ device: String) -> String { devicesDirectory + "/" + device }
    public func deviceFile(_ device: String) -> String { deviceDirectory(device) + "/device.json" }
    public func configDirectory(_ device: String) -> String { directory(device, .config) }

    /// The two tracks each device writes: readable config records, and sealed credential batches.
    public enum Track: String, Sendable {
        case config, credentials
        var fileExtension: String { self == .config ? "jsonl" : "box" }
    }

    public func directory(_ device: String, _ track: Track) -> String { deviceDirectory(device) + "/" + track.rawValue }

    /// Batch names sort in write order: zero-padded sequence numbers.
    public static func batchName(_ sequence: Int, extension ext: String = "jsonl") -> String {
        String(format: "%08d.", sequence) + ext
    }

    public static func sequence(of name: String, extension ext: String = "jsonl") -> Int? {
        guard name.hasSuffix("." + ext), !name.hasPrefix(".") else { return nil }
        return Int(name.dropLast(ext.count + 1))
    }

    /// A device id as it may appear in a path: a lower-case UUID, nothing that could climb out of the folder.
    public static func isValidDeviceID(_ text: String) -> Bool {
        text.count == 36 && UUID(uuidString: text) != nil && text == text.lowercased()
    }
}

public struct DeviceInfo: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var format: Int

    public init(id: String, name: String, format: Int = RemoteLayout.format) {
        self.id = id
        self.name = name
        self.format = format
    }
}
