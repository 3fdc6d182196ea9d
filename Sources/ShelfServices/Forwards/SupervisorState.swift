// SupervisorState: what `forward up` publishes for `forward status` and `forward stop`, and every `forward start`
// for the TUI — its pid and each rule's state — as 0600 JSON files in a 0700 runtime directory, replaced
// atomically. A file whose process is gone is ignored and removed by its reader.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfSSH
import ShelfSystem

public struct SupervisorState: Codable, Equatable {
    public var pid: Int32
    public var startedAt: Date
    public var updatedAt: Date
    public var rules: [RuleState]
    /// A `forward start` the TUI started with `t` (`--from-tui`): any later TUI's `t` may stop it. Nil otherwise.
    public var fromTUI: Bool?

    public init(pid: Int32, startedAt: Date, updatedAt: Date, rules: [RuleState], fromTUI: Bool? = nil) {
        self.pid = pid
        self.startedAt = startedAt
        self.updatedAt = updatedAt
        self.rules = rules
        self.fromTUI = fromTUI
    }

    /// The state as `forward status --json` gives it (each rule's `forScripts`).
    public var forScripts: SupervisorState {
        var shown = self
        shown.rules = rules.map(\.forScripts)
        return shown
    }
}

public struct RuleState: Codable, Equatable {
    public enum Phase: String, Codable { case starting, active, retrying, failed }

    public var ruleID: UUID
    public var host: String
    public var spec: String
    public var state: Phase
    public var boundPort: Int?
    public var activeConnections = 0
    public var totalConnections = 0
    public var failedConnections = 0
    public var bytesOut: Int64 = 0
    public var bytesIn: Int64 = 0
    /// Why the session is retrying or failed, or the last connection error while active. A state saved before hints
    /// were data has the hint's words in parentheses here, and no `guidance`.
    public var lastError: String?
    /// What to do about `lastError`, as data each face words (`lastError(wordedBy:)`); nil when there is nothing to do
    /// or its hint was words (they stay in `lastError`).
    public var guidance: Hint?
    public var nextAttempt: Date?
    /// Connections each session has carried, for a rule spread over several sessions (`sessions N`).
    public var connectionsPerSession: [Int]?
    /// The OpenSSH ssh running the rule (a host that requires post-quantum key exchange); nil in sshelf's own client.
    public var sshPid: Int32?
}

extension RuleState {
    /// Why a rule stopped, from a failure: its message, and its hint as data where it is data (each face words it),
    /// else its words in parentheses as before.
    static func reason(_ failure: ShelfError) -> (error: String, guidance: Hint?) {
        if let guidance = failure.guidance { return (failure.message, guidance) }
        return (failure.message + (failure.hint.map { " (\($0))" } ?? ""), nil)
    }

    /// The last error with what to do about it in a face's words, in parentheses.
    public func lastError(wordedBy face: (Hint) -> String) -> String? {
        lastError.map { $0 + (guidance.map { " (\(face($0)))" } ?? "") }
    }

    /// This state as `forward status --json` gives it to scripts: the hint in its face-neutral words inside
    /// `lastError`, as it always was, and no face's data.
    public var forScripts: RuleState {
        var shown = self
        shown.lastError = lastError(wordedBy: \.words)
        shown.guidance = nil
        return shown
    }

    /// A running rule's state from its live status.
    init(status: ForwardStatus, host: String) {
        self.init(
            ruleID: status.ruleID, host: host, spec: status.spec, state: .active, boundPort: status.boundPort,
            activeConnections: status.activeConnections, totalConnections: status.totalConnections,
            failedConnections: status.failedConnections, bytesOut: status.bytesOut, bytesIn: status.bytesIn,
            lastError: status.lastError, connectionsPerSession: status.connectionsPerSession)
    }

    /// Copies the live counts of a running rule, keeping this state's phase and schedule.
    mutating func take(_ status: ForwardStatus) {
        boundPort = status.boundPort
        activeConnections = status.activeConnections
        totalConnections = status.totalConnections
        failedConnections = status.failedConnections
        bytesOut = status.bytesOut
        bytesIn = status.bytesIn
        lastError = status.lastError
        guidance = nil
        connectionsPerSession = status.connectionsPerSession
    }
}

public enum SupervisorFiles {
    public static func statePath(_ locations: DataLocations) -> String { locations.runtimeDirectory + "/forwards.json" }
    static func lockPath(_ locations: DataLocations) -> String { locations.runtimeDirectory + "/forward-up.lock" }

    public static func write(_ state: SupervisorState, _ locations: DataLocations) throws {
        try PrivateFiles.ensureDirectory(locations.runtimeDirectory)
        try write(state, to: statePath(locations))
    }

    /// Where `forward start` publishes: one file per process, so the TUI finds every running rule.
    static func startStatePath(_ locations: DataLocations, pid: Int32) -> String {
        locations.runtimeDirectory + "/\(startPrefix)\(pid).json"
    }

    private static let startPrefix = "forward-start-"

    /// Every running `forward start`'s state (files of dead processes are removed; unreadable ones skipped).
    public static func startStates(_ locations: DataLocations) -> [SupervisorState] {
        let directory = locations.runtimeDirectory
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasPrefix(startPrefix) && $0.hasSuffix(".json") }.compactMap { name in
            let path = directory + "/" + name
            guard let data = try? RegularFile.read(path), let state = decode(Data(data)) else { return nil }
            guard kill(state.pid, 0) == 0 || errno == EPERM else {
                try? FileManager.default.removeItem(atPath: path)
                return nil
            }
            return state
        }
    }

    /// The same format at another path (each `forward start`'s own file).
    static func write(_ state: SupervisorState, to path: String) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try PrivateFiles.atomicWrite(try encoder.encode(state), to: path)
    }

    /// The running supervisor's state; nil when none runs (a file left by a dead one is removed).
    public static func read(_ locations: DataLocations) throws -> SupervisorState? {
        let path = statePath(locations)
        let data: [UInt8]
        do { data = try RegularFile.read(path) } catch {
            if error.kind == .missing { return nil }
            throw ShelfError(
                .failure, "cannot read the forward state: \(error)",
                hint: "remove it if no 'sshelf forward up' is running")
        }
        guard let state = decode(Data(data)) else {
            throw ShelfError(
                .failure, "the forward state file \(path) is unreadable",
                hint: "remove it if no 'sshelf forward up' is running")
        }
        guard kill(state.pid, 0) == 0 || errno == EPERM else {
            try? FileManager.default.removeItem(atPath: path)
            return nil
        }
        return state
    }

    static func decode(_ data: Data) -> SupervisorState? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(SupervisorState.self, from: data)
    }

    /// Holds the single-instance lock for the life of the process; nil when another supervisor has it.
    public static func lock(_ locations: DataLocations) throws -> Int32? {
        try PrivateFiles.ensureDirectory(locations.runtimeDirectory)
        let fd = open(lockPath(locations), O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw ShelfError(.failure, "cannot open \(lockPath(locations)): \(String(cString: strerror(errno)))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            return nil
        }
        return fd
    }
}
