// ServiceState: what the user service publishes about itself for `service status`, the TUI and the CLI — its pid,
// each part's state (agent, forwards, sync: last run, next attempt and why) and a debug count of its wake-ups — as
// one 0600 JSON file in the state folder, replaced atomically; and the single-instance lock beside it.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfSystem

public struct ServiceState: Codable, Equatable, Sendable {
    public struct Agent: Codable, Equatable, Sendable {
        public var socket: String
        public var running: Bool
        /// "locked", "unlocked", "no vault", or why the agent is not running.
        public var vault: String
    }

    public struct Forwards: Codable, Equatable, Sendable {
        /// Autostart rules the service runs, as `HOST -L SPEC`.
        public var rules: [String]
        /// Those of them listening now.
        public var up: [String]
        /// Why no rule runs (none configured, the vault, …), when none does.
        public var note: String?
    }

    public struct Sync: Codable, Equatable, Sendable {
        /// off, idle, syncing, waiting (a run is due after a change)
        public var state: String
        public var transport: String?
        public var lastRun: Date?
        /// synced, or "local fallback: REASON" — what the last run's report said.
        public var lastResult: String?
        public var nextAttempt: Date?
        /// Why the next attempt comes then: "a local change", "the folder remote changed", "poll the git remote",
        /// "retry after a failure (backoff 2 min)", …
        public var nextReason: String?
        public var failures: Int
        public var runs: Int
    }

    public var pid: Int32
    public var started: Date
    public var updated: Date
    public var agent: Agent
    public var forwards: Forwards
    public var sync: Sync
    /// How many times the service's own threads woke (its loop, the sync scheduler): a test and a benchmark read it
    /// to prove that an idle service does not wake without cause.
    public var wakeups: Int
    /// How many SIGUSR2s (write the state now) the service has handled: one who sent one knows the state file it
    /// reads was written after its own request, not by a turn that happened to come first (nil: an older service).
    public var stateRequests: Int?
}

public enum ServiceFiles {
    public static func statePath(_ locations: DataLocations) -> String { locations.stateDirectory + "/service.json" }
    public static func logPath(_ locations: DataLocations) -> String { locations.stateDirectory + "/service.log" }
    static func lockPath(_ locations: DataLocations) -> String { locations.stateDirectory + "/service.lock" }

    /// Takes the single-instance lock for the life of the process: its descriptor, or nil when another service
    /// holds it.
    public static func lock(_ locations: DataLocations) throws -> Int32? {
        try PrivateFiles.ensureDirectory(locations.stateDirectory)
        let fd = open(lockPath(locations), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, PrivateFiles.fileMode)
        guard fd >= 0 else {
            throw ShelfError(.failure, "cannot open \(lockPath(locations)): \(String(cString: strerror(errno)))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            return nil
        }
        PrivateFiles.tighten(lockPath(locations))
        return fd
    }

    /// Whether a service holds the lock now (a lock is released by the kernel however the process ended).
    public static func isLocked(_ locations: DataLocations) -> Bool {
        let fd = open(lockPath(locations), O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard flock(fd, LOCK_SH | LOCK_NB) == 0 else { return errno == EWOULDBLOCK }
        flock(fd, LOCK_UN)
        return false
    }

    public static func write(_ state: ServiceState, _ locations: DataLocations) throws {
        try PrivateFiles.ensureDirectory(locations.stateDirectory)
        try PrivateFiles.atomicWrite(try ShelfJSON.encoder(pretty: true).encode(state), to: statePath(locations))
    }

    /// The state the running service last wrote; nil when no service runs (its lock is free) or it wrote none yet.
    public static func running(_ locations: DataLocations) -> ServiceState? {
        guard isLocked(locations), let state = read(locations) else { return nil }
        guard kill(state.pid, 0) == 0 || errno == EPERM else { return nil }
        return state
    }

    /// The last state written, running or not.
    public static func read(_ locations: DataLocations) -> ServiceState? {
        guard let data = try? RegularFile.read(statePath(locations)) else { return nil }
        return try? ShelfJSON.decoder().decode(ServiceState.self, from: Data(data))
    }

    /// Asks the running service for a sync run now (SIGUSR1); false when none runs.
    @discardableResult
    public static func nudge(_ locations: DataLocations) -> Bool {
        guard let state = running(locations) else { return false }
        return kill(state.pid, SIGUSR1) == 0
    }
}
