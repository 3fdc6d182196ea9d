// RecordingCatalog: the recordings as `sessions list` and the TUI show them (decrypted in memory to read their
// description and length), the rotation by age and total size, and the sealing of interrupted recordings: a file
// whose writer is gone (a crash, kill -9) without its end gets its digest chained into the release log, as a
// finished one does, so `log verify` covers it from then on.
import FoundationEssentials
import ShelfCore
import ShelfSystem
import ShelfVault

public struct RecordingSummary: Sendable, Encodable {
    public var info: RecordingInfo
    /// finished, interrupted, recording (being written now) or damaged: why.
    public var state: String
    public var seconds: Double
    public var outputBytes: Int
    public var fileBytes: Int
    public var path: String

    public var id: UUID { info.id }
}

/// How long recordings are kept: older ones, and the oldest beyond the total size, go at the next recording.
public struct RecordingRetention: Sendable, Equatable {
    public var keepSeconds: Double?
    public var maxBytes: Int?

    public static let keepSetting = "recordings.keep"
    public static let maxSizeSetting = "recordings.max-size"
    /// 30 days unless the user says otherwise.
    public static let defaultKeep: Double = 30 * 86_400

    public init(keepSeconds: Double?, maxBytes: Int?) {
        self.keepSeconds = keepSeconds
        self.maxBytes = maxBytes
    }
}

public enum RecordingCatalog {
    /// Every recording, oldest first; one that cannot be read is listed as damaged rather than left out.
    public static func list(locations: DataLocations, key: RecordingsKey) -> [RecordingSummary] {
        Recordings.files(locations).map { file in
            var info: RecordingInfo? = nil
            var last = 0.0
            var output = 0
            let state: RecordingState
            do {
                // Where each event lies: nothing of the output is copied to count it.
                state = try Recordings.scan(file.path, id: file.id, key: key) { kind, time, payload in
                    switch kind {
                    case 0x4D: info = RecordingFormat.info(payload) ?? info
                    case 0x6F:
                        output += payload.count
                        last = time
                    default: last = max(last, time)
                    }
                    return true
                }
            } catch {
                state = .damaged("\(error)")
            }
            var words: String
            switch state {
            case .finished: words = "finished"
            case .interrupted, .stopped:
                words = Recordings.isBeingWritten(file.path) ? "recording" : "interrupted"
            case .damaged(let why): words = "damaged: \(why)"
            }
            let described =
                info
                ?? RecordingInfo(
                    id: file.id, host: "?", hostID: nil, started: file.modified, columns: 80, rows: 24, input: false,
                    by: "?")
            if info == nil, case .finished = state { words = "damaged: no description" }
            return RecordingSummary(
                info: described, state: words, seconds: last, outputBytes: output, fileBytes: file.size,
                path: file.path)
        }
    }

    /// Finds one recording by id or id prefix (as lists show it).
    public static func find(_ word: String, locations: DataLocations) throws -> (id: UUID, path: String) {
        let prefix = word.lowercased()
        let matches = Recordings.files(locations).filter { $0.id.uuidString.lowercased().hasPrefix(prefix) }
        guard !prefix.isEmpty, let first = matches.first else {
            throw ShelfError(
                .notFound, "no recording has the id '\(word)'", hint: "sshelf sessions list shows the recordings")
        }
        guard matches.count == 1 else {
            throw ShelfError(
                .usage, "'\(word)' starts the ids of \(matches.count) recordings",
                hint: "give more of the id: " + matches.map { Recordings.shortID($0.id) }.joined(separator: ", "))
        }
        return (first.id, first.path)
    }

    /// The retention this device keeps (store settings; never synced).
    public static func retention(from setting: (String) throws -> String?) throws -> RecordingRetention {
        let keep = try setting(RecordingRetention.keepSetting).flatMap(Double.init)
        let size = try setting(RecordingRetention.maxSizeSetting).flatMap { Int($0) }
        return RecordingRetention(keepSeconds: keep ?? RecordingRetention.defaultKeep, maxBytes: size)
    }

    /// Removes what the retention no longer keeps (never a recording being written) and seals interrupted ones;
    /// each removal and seal has its release-log line. Answers the ids removed.
    @discardableResult
    public static func tidy(locations: DataLocations, retention: RecordingRetention, vault: Vault, now: Date = Date())
        throws -> [UUID]
    {
        sealInterrupted(locations: locations, vault: vault)
        var files = Recordings.files(locations).filter { !Recordings.isBeingWritten($0.path) }
        var removed: [UUID] = []
        if let keep = retention.keepSeconds {
            for file in files where now.timeIntervalSince1970 - file.modified > keep {
                try Recordings.remove(file.id, path: file.path, by: "rotation (older than the kept age)", vault: vault)
                removed.append(file.id)
            }
            files.removeAll { removed.contains($0.id) }
        }
        if let limit = retention.maxBytes {
            var total = Recordings.files(locations).reduce(0) { $0 + $1.size }
            for file in files where total > limit {
                try Recordings.remove(file.id, path: file.path, by: "rotation (over the kept size)", vault: vault)
                removed.append(file.id)
                total -= file.size
            }
        }
        return removed
    }

    /// The ids the release log holds a recording's line for, and whether removed: what `log verify` checks and
    /// what sealing skips.
    static func logged(_ entries: [ReleaseEntry]) -> (sealed: [String: String], removed: Set<String>) {
        var sealed: [String: String] = [:]
        var removed: Set<String> = []
        for entry in entries where entry.item.hasPrefix("recording ") {
            switch entry.what {
            case "recording": sealed[entry.item] = entry.detail ?? ""
            case "recording removed": removed.insert(entry.item)
            default: continue
            }
        }
        return (sealed, removed)
    }

    /// A recording with no digest line whose writer is gone: its digest is written now ("interrupted").
    public static func sealInterrupted(locations: DataLocations, vault: Vault) {
        guard let entries = try? ReleaseLog(locations: locations).entries().entries else { return }
        let known = logged(entries)
        for file in Recordings.files(locations) where known.sealed[Recordings.logItem(file.id)] == nil {
            guard !Recordings.isBeingWritten(file.path), let digest = Recordings.fileDigest(file.path) else {
                continue
            }
            let entry = ReleaseEntry(
                what: "recording", item: Recordings.logItem(file.id), by: "sealed after an interruption",
                detail: "sha256 \(digest), \(file.size) bytes")
            try? vault.record(entry)
        }
    }

    /// What `log verify` adds: every recording the log sealed is present with that digest unless the log says it
    /// was removed; one problem per recording, naming it. A recording present but not sealed yet (being written, or
    /// interrupted and not yet sealed) is a note.
    public static func verify(locations: DataLocations, entries: [ReleaseEntry]) -> (
        problems: [String], notes: [String]
    ) {
        let known = logged(entries)
        let files = Recordings.files(locations)
        let present = Dictionary(files.map { (Recordings.logItem($0.id), $0) }, uniquingKeysWith: { a, _ in a })
        var problems: [String] = []
        var notes: [String] = []
        for (item, detail) in known.sealed.sorted(by: { $0.key < $1.key }) where !known.removed.contains(item) {
            let id = String(item.dropFirst("recording ".count))
            guard let file = present[item] else {
                problems.append("recording \(id) was removed outside sshelf (the release log sealed it)")
                continue
            }
            let expected = detail.split(separator: " ").dropFirst().first.map { String($0.prefix(64)) } ?? ""
            if Recordings.fileDigest(file.path) != expected {
                problems.append("recording \(id) was altered: its SHA-256 is not the one the release log sealed")
            }
        }
        for file in files where known.sealed[Recordings.logItem(file.id)] == nil {
            let id = file.id.uuidString.lowercased()
            notes.append(
                Recordings.isBeingWritten(file.path)
                    ? "recording \(id) is being written; its digest joins the log when it ends"
                    : "recording \(id) has no digest in the log yet (interrupted): 'sshelf sessions list' seals it")
        }
        return (problems, notes)
    }
}
