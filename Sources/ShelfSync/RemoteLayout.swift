// RemoteLayout: the shape of a sync remote (format 2). `format.json` at the top; each device writes only its own
// chain, `devices/<device-id>/<seq>.entry`, every file once; invites live in `invites/` as sealed boxes (written by
// the inviting device) and sealed claims (one per joining device). No name or plaintext header names a host.
import FoundationEssentials
import ShelfCore

public struct RemoteLayout: Sendable {
    /// The remote format this program writes and understands.
    public static let format = 2
    /// An entry larger than this is neither read nor written (a remote is not trusted to be small): a snapshot of
    /// 100,000 hosts is about 50 MB, and reading one costs about three times its size in memory.
    public static let maxEntryBytes = 64 * 1024 * 1024
    /// More device folders than this stop a run with that reason (a group has a handful of devices; a remote
    /// flooded with folders must not make every run read them all).
    public static let maxDeviceFolders = 1_000
    /// More files than this in one device's folder, or in `invites`, stop reading it with that reason.
    public static let maxEntryFiles = 10_000
    public static let maxInviteFiles = 10_000
    /// Invite boxes and claims are small; anything larger is not read.
    public static let maxInviteBytes = 1024 * 1024
    /// format.json holds one small object.
    public static let maxFormatBytes = 64 * 1024

    public let root: String

    public init(root: String) { self.root = root }

    public var formatFile: String { root + "/format.json" }
    public var devicesDirectory: String { root + "/devices" }
    public var invitesDirectory: String { root + "/invites" }
    public func deviceDirectory(_ device: String) -> String { devicesDirectory + "/" + device }
    public func entryPath(_ device: String, _ seq: Int64) -> String {
        deviceDirectory(device) + "/" + RemoteLayout.entryName(seq)
    }
    public func inviteBox(_ invite: UUID) -> String { invitesDirectory + "/\(invite.lowerText).box" }
    public func claim(_ invite: UUID, device: String) -> String {
        invitesDirectory + "/\(invite.lowerText).\(device).claim"
    }

    /// Entry names sort in chain order: zero-padded sequence numbers.
    public static func entryName(_ seq: Int64) -> String { TextFormat.zeroPadded(seq, width: 10) + ".entry" }

    public static func sequence(of name: String) -> Int64? {
        guard name.hasSuffix(".entry"), !name.hasPrefix("."), name.utf8.count == 16 else { return nil }
        guard let seq = Int64(name.dropLast(6)), seq > 0 else { return nil }
        return seq
    }

    /// A device id as it may appear in a path: a lower-case UUID, nothing that could climb out of the folder.
    public static func isValidDeviceID(_ text: String) -> Bool {
        text.count == 36 && UUID(uuidString: text) != nil && text == text.lowercased()
    }

    // MARK: format 1 (plaintext records: never read, only removed)

    /// Files and folders that format 1 wrote inside a device folder.
    static let formatOneNames: Set<String> = ["device.json", "config", "credentials"]
}
