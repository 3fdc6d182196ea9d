// RunCommandReport: how a fleet run is reported — every distinct output once under the hosts that gave it, folded
// as clush -b and dshbak -c print them (web-[01-03]), then the hosts' statuses folded alike and a summary; or, with
// --json, one JSON object a line per host. Host output reaches a terminal only through HostOutputText (a host's
// escape sequences cannot touch the clipboard, the title, or the lines sshelf prints around them); it goes raw
// only with --raw or to a file or pipe, as `less -R` and `cat -v` leave it to the user.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfServices

enum RunReport {
    static let rule = "---------------"

    /// `raw`: host output as it came (--raw, or stdout not a terminal); else shown safe.
    static func print(_ summary: FleetRun.Summary, raw: Bool, context: AppContext) {
        for group in FleetReport.groups(summary.results) {
            context.output(
                "\(rule)\n\(HostRanges.fold(group.hosts.map(Display.safe))) (\(group.hosts.count))\n\(rule)\n")
            write(group.stdout, raw: raw, context: context)
            if !group.stderr.isEmpty {
                context.output("--- stderr\n")
                write(group.stderr, raw: raw, context: context)
            }
        }
        for line in FleetReport.statusLines(summary.results) { context.output(line + "\n") }
        context.output(FleetReport.summaryLine(summary) + "\n")
    }

    /// The hosts' statuses and the summary line (what `--stream` prints at the end: the outputs were printed as
    /// they came).
    static func printStatuses(_ summary: FleetRun.Summary, context: AppContext) {
        for line in FleetReport.statusLines(summary.results) { context.output(line + "\n") }
        context.output(FleetReport.summaryLine(summary) + "\n")
    }

    /// `--stream`'s printer: each line through HostOutputText on a terminal (unless --raw), raw to a file or a pipe.
    static func stream(raw: Bool) -> FleetStream {
        FleetStream(show: { line in raw ? line : Array(HostOutputText.clean(line).utf8) })
    }

    /// Remote output, ending its last line so the next header starts on its own: safe, or raw (binary-safe).
    private static func write(_ bytes: [UInt8], raw: Bool, context: AppContext) {
        guard !bytes.isEmpty else { return }
        if raw {
            bytes.withUnsafeBytes { StandardStreams.write($0, fd: 1) }
        } else {
            context.output(HostOutputText.clean(bytes))
        }
        if bytes.last != 0x0A { context.output("\n") }
    }

    /// One object a line per host, in natural order of the names.
    static func printJSON(_ results: [FleetHostResult], context: AppContext) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        for result in FleetReport.ordered(results) {
            let record = Record(
                name: result.name, id: result.hostID.uuidString.lowercased(), outcome: result.outcome.rawValue,
                exitStatus: result.exitStatus, stdout: String(decoding: result.stdout, as: UTF8.self),
                stderr: String(decoding: result.stderr, as: UTF8.self), error: result.error, fix: result.fix,
                fingerprint: result.fingerprint,
                warm: result.warm, openssh: result.openSSH, truncated: result.truncated, started: result.started,
                finished: result.finished,
                seconds: result.seconds)
            if let data = try? encoder.encode(record) { context.output(JSONOutput.terminalSafe(data) + "\n") }
        }
    }

    struct Record: Encodable {
        var name: String
        var id: String
        var outcome: String
        var exitStatus: Int32?
        var stdout: String
        var stderr: String
        var error: String?
        var fix: String?
        var fingerprint: String?
        var warm: Bool
        /// Why the host went through OpenSSH's ssh instead of sshelf's own client (absent: it did not).
        var openssh: String?
        var truncated: Bool
        var started: Date?
        var finished: Date?
        var seconds: Double?
    }
}
