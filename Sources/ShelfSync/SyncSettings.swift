// SyncSettings: this device's sync configuration (kept in the store's device-local settings, never synced):
// which transport, where, and how far this device's changes have been exported.
import Foundation
import ShelfCore
import ShelfStore

public struct SyncSettings: Sendable, Equatable {
    public enum Transport: String, Sendable { case folder, git }

    public var transport: Transport
    /// A folder path, or a git URL.
    public var location: String

    public init(transport: Transport, location: String) {
        self.transport = transport
        self.location = location
    }

    public static func load(from store: Store) throws -> SyncSettings? {
        guard let transport = try store.setting("sync.transport").flatMap(Transport.init(rawValue:)),
              let location = try store.setting("sync.location") else { return nil }
        return SyncSettings(transport: transport, location: location)
    }

    /// Saves the settings and forgets the export watermark, so the whole local state goes to the new remote.
    public func save(to store: Store) throws {
        try store.write { store in
            try store.setSetting("sync.transport", transport.rawValue)
            try store.setSetting("sync.location", location)
            try store.setSetting("sync.exported", nil)
        }
    }

    public static func clear(from store: Store) throws {
        try store.write { store in
            for key in ["sync.transport", "sync.location", "sync.exported", "sync.credentials", "sync.credentials.digest"] {
                try store.setSetting(key, nil)
            }
        }
    }

    /// Whether the credential track is on for this device.
    public static func credentialsEnabled(_ store: Store) throws -> Bool { try store.setting("sync.credentials") == "on" }

    public static func setCredentials(_ on: Bool, _ store: Store) throws {
        try store.write { store in
            try store.setSetting("sync.credentials", on ? "on" : nil)
            try store.setSetting("sync.credentials.digest", nil)
        }
    }

    /// Local changes made since the last run sent this device's batch.
    public static func pendingUp(_ store: Store) throws -> Int {
        try store.localChangeCount(after: try exportedWatermark(store))
    }

    static func exportedWatermark(_ store: Store) throws -> ClockStamp? {
        guard let text = try store.setting("sync.exported") else { return nil }
        let parts = text.split(separator: ".")
        guard parts.count == 2, let wall = Int64(parts[0]), let counter = Int(parts[1]) else { return nil }
        return ClockStamp(wall: wall, counter: counter, device: try store.deviceID)
    }

    static func setExportedWatermark(_ stamp: ClockStamp, _ store: Store) throws {
        try store.setSetting("sync.exported", "\(stamp.wall).\(stamp.counter)")
    }
}
