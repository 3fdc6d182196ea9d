// SyncSettings: this device's sync configuration (kept in the store's device-local settings, never synced): which
// transport, where, and whether the credential track is on. The group this device belongs to is GroupState's.
import FoundationEssentials
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
            let location = try store.setting("sync.location")
        else { return nil }
        return SyncSettings(transport: transport, location: location)
    }

    /// Saves the settings. Pointed at another remote, this device forgets how far it had verified the other devices'
    /// chains there (a new remote starts empty; that is the user's doing, not a rollback) and keeps its own numbering.
    public func save(to store: Store) throws {
        try store.write { store in
            if let previous = try SyncSettings.load(from: store), previous != self {
                try store.resetPeers(except: try store.deviceID)
            }
            try store.setSetting("sync.transport", transport.rawValue)
            try store.setSetting("sync.location", location)
        }
    }

    /// Stops syncing. The group, the roster and what was verified stay, so turning sync on again with the same
    /// remote carries on where it stopped.
    public static func clear(from store: Store) throws {
        try store.write { store in
            for key in ["sync.transport", "sync.location", "sync.credentials", "sync.credentials.digest"] {
                try store.setSetting(key, nil)
            }
        }
    }

    /// Whether the credential track is on for this device.
    public static func credentialsEnabled(_ store: Store) throws -> Bool {
        try store.setting("sync.credentials") == "on"
    }

    public static func setCredentials(_ on: Bool, _ store: Store) throws {
        try store.write { store in
            try store.setSetting("sync.credentials", on ? "on" : nil)
            try store.setSetting("sync.credentials.digest", nil)
        }
    }

    /// Local changes not sent yet.
    public static func pendingUp(_ store: Store) throws -> Int { try store.outboxCount() }
}
