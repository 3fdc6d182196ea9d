// ReleaseLogVerify: `sshelf log verify` — recomputes the release log's chain with the log key over every file kept
// (the archives, oldest first, then the current file) and compares its ends with the head record: an edited,
// removed, reordered or cut-off line, a replaced log, a deleted archive or a rewritten head is reported.
import FoundationEssentials
import ShelfCore
import ShelfSystem

/// What `verify` found: the first problem, if any, and what held.
public struct ReleaseLogVerdict: Sendable, Equatable {
    /// The lines kept and verified.
    public var lines: Int
    public var problems: [String]
    public var notes: [String]
    public var intact: Bool { problems.isEmpty }
}

extension ReleaseLog {
    /// Recomputes the chain with the log key and compares the ends with the head record. Reports the first break
    /// in the chain (an edited line, a removed or reordered one, a missing archive between two others), a log
    /// shorter than its head (cut off the end) and a log that starts after the first line the head says is kept
    /// (its oldest archive deleted).
    public func verify(vault: Vault) throws(ReleaseLogError) -> ReleaseLogVerdict {
        let segments = try segments()
        let headExists = PrivateFiles.mode(of: headPath) != nil
        let key: SecretBytes
        switch vault.releaseLogKey(create: false) {
        case .key(let found): key = found
        case .absent:
            if segments.isEmpty && !headExists {
                return ReleaseLogVerdict(lines: 0, problems: [], notes: ["nothing was released yet"])
            }
            return ReleaseLogVerdict(
                lines: 0,
                problems: [
                    "the log exists but the vault has no release log key: it cannot be verified (was the key removed?)"
                ], notes: [])
        case .locked:
            let fix = Hint(.passphrase(.give)).or(.command(["vault", "unlock"]))
            throw ReleaseLogError(message: "the release log key is locked", hint: fix.words, guidance: fix)
        case .unavailable(let reason):
            throw ReleaseLogError(message: "the release log key cannot be read: \(reason)", hint: nil)
        }
        guard !segments.isEmpty else {
            return ReleaseLogVerdict(
                lines: 0,
                problems: [
                    "the release log is missing, but releases were logged on this device (its key exists): "
                        + "it was deleted"
                ], notes: [])
        }
        let head = Head.load(headPath)
        var chain = Chain(key: key, recordedLine: head?.count)
        var problems: [String] = []
        scan: for segment in segments where !segment.bytes.isEmpty {
            let lines = segment.bytes.split(separator: 0x0a, omittingEmptySubsequences: false)
            let ended = segment.bytes.last == 0x0a
            let complete = ended ? lines.dropLast() : lines[...]
            for (index, raw) in complete.enumerated() {
                if let problem = chain.take(Array(raw), at: "line \(index + 1) of \(segment.name)") {
                    problems.append(problem)
                    break scan
                }
            }
            if !ended {
                problems.append("\(segment.name) ends in the middle of a line (line \(lines.count))")
                break
            }
        }
        var notes: [String] = []
        let count = chain.last - chain.start + 1
        if problems.isEmpty {
            if let head {
                if !head.isValid(key: key) {
                    problems.append("the head record does not match its MAC: it was edited")
                } else if head.count > chain.last {
                    problems.append(
                        "the log ends at line \(chain.last) but its head record says \(head.count): lines "
                            + "were cut off the end")
                } else if chain.start > head.first {
                    problems.append(
                        "the log starts at line \(chain.start) but its head record says lines from \(head.first) are "
                            + "kept: the oldest lines (an archived file) were deleted")
                } else if head.count > 0 && !(chain.recordedMAC.map { LogMAC.equal($0, head.last) } ?? false) {
                    problems.append("line \(head.count) is not the line the head record recorded: the log was replaced")
                } else if head.count < chain.last {
                    notes.append(
                        "\(chain.last - head.count) line(s) after the head record (an append was interrupted before "
                            + "the head was updated); their chain holds"
                    )
                }
            } else if headExists || count > 0 {
                problems.append("the head record is missing or unreadable, so a cut-off end cannot be ruled out")
            }
        }
        if problems.isEmpty && chain.start > 1 {
            notes.append(
                "lines 1–\(chain.start - 1) were rotated out: the log keeps \(rotation.archives) archived file(s) of "
                    + "\(rotation.segmentBytes) bytes"
            )
        }
        return ReleaseLogVerdict(lines: max(0, count), problems: problems, notes: notes)
    }

    /// The chain as it is walked, line by line across files.
    private struct Chain {
        let key: SecretBytes
        /// The line number the head record names, whose MAC is kept to compare.
        let recordedLine: Int?
        /// What the next line chains to; nil before the first line.
        var link: [UInt8]? = nil
        /// The number of the first line kept, and of the last one walked.
        var start = 1
        var last = 0
        var recordedMAC: [UInt8]? = nil

        init(key: SecretBytes, recordedLine: Int?) {
            self.key = key
            self.recordedLine = recordedLine
        }

        /// Walks one line; the problem it shows, if any.
        mutating func take(_ raw: [UInt8], at place: String) -> String? {
            guard let parsed = ReleaseLog.parse(raw) else {
                return "\(place) is not a log line: it was damaged or edited"
            }
            var stated: [UInt8]? = nil
            if let text = parsed.entry.previous {
                guard let bytes = ReleaseLog.unhex(Array(text.utf8)), bytes.count == LogMAC.length else {
                    return "\(place) is not a log line: it was damaged or edited"
                }
                stated = bytes
            }
            if let link {
                // A file started by a rotation names the line it follows: it must be the one walked just before.
                if let named = stated, !LogMAC.equal(named, link) {
                    return "\(place) does not follow the line before it: a file of the log was removed or replaced"
                }
                guard parsed.entry.seq == last + 1 else {
                    return
                        "\(place) carries number \(parsed.entry.seq) where \(last + 1) was due: lines were removed or "
                        + "reordered before it"
                }
            } else if let named = stated {
                // The oldest file kept, started by a rotation: its chain starts at the MAC it names.
                link = named
                start = parsed.entry.seq
            } else {
                link = ReleaseLog.firstLink
                guard parsed.entry.seq == 1 else {
                    return "\(place) carries number \(parsed.entry.seq) where 1 was due: lines were removed "
                        + "or reordered before it"
                }
            }
            let expected = LogMAC.mac(key: key, [link ?? ReleaseLog.firstLink, parsed.body])
            guard LogMAC.equal(expected, parsed.mac) else {
                return "\(place) does not match its MAC: it was edited, or a line before it was changed"
            }
            link = parsed.mac
            last = parsed.entry.seq
            if parsed.entry.seq == recordedLine { recordedMAC = parsed.mac }
            return nil
        }
    }
}
