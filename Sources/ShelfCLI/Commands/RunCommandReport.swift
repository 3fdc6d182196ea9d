// RunCommandReport: how a fleet run is reported — every distinct output once under the hosts that gave it, folded
// as clush -b and dshbak -c print them (web-[01-03]), then one status line per host and a summary; or, with --json,
// one JSON object a line per host.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfOperations
import ShelfSSH
import ShelfServices

enum RunReport {
    static let rule = "---------------"

    static func print(_ summary: FleetRun.Summary, context: AppContext) {
        for group in FleetReport.groups(summary.results) {
            context.output(
                "\(rule)\n\(HostRanges.fold(group.hosts.map(Display.safe))) (\(group.hosts.count))\n\(rule)\n")
            write(group.stdout, context: context)
            if !group.stderr.isEmpty {
                context.output("--- stderr\n")
                write(group.stderr, context: context)
            }
        }
        printStatuses(summary, context: context)
    }

    /// Each host's status and the summary line (what `--stream` prints at the end: the outputs were printed as they
    /// came).
    static func printStatuses(_ summary: FleetRun.Summary, context: AppContext) {
        for result in summary.results { context.output(FleetReport.statusLine(result) + "\n") }
        context.output(FleetReport.summaryLine(summary) + "\n")
    }

    /// `--stream`'s printer: lines shown safe on a terminal, raw to a file or a pipe.
    static func stream() -> FleetStream {
        let terminal = isatty(1) == 1
        return FleetStream(show: { line in
            terminal ? Array(UntrustedText.clean(String(decoding: line, as: UTF8.self)).utf8) : line
        })
    }

    /// Remote output as it came (binary-safe), ending its last line so the next header starts on its own.
    private static func write(_ bytes: [UInt8], context: AppContext) {
        guard !bytes.isEmpty else { return }
        bytes.withUnsafeBytes { StandardStreams.write($0, fd: 1) }
        if bytes.last != 0x0A { context.output("\n") }
    }

    /// One object a line per host, in run order.
    static func printJSON(_ results: [FleetHostResult], context: AppContext) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        for result in results {
            let record = Record(
                name: result.name, id: result.hostID.uuidString.lowercased(), outcome: result.outcome.rawValue,
                exitStatus: result.exitStatus, stdout: String(decoding: result.stdout, as: UTF8.self),
                stderr: String(decoding: result.stderr, as: UTF8.self), error: result.error,
                fingerprint: result.fingerprint,
                warm: result.warm, truncated: result.truncated, started: result.started, finished: result.finished,
                seconds: result.seconds)
            if let data = try? encoder.encode(record) { context.output(String(decoding: data, as: UTF8.self) + "\n") }
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
        var fingerprint: String?
        var warm: Bool
        var truncated: Bool
        var started: Date?
        var finished: Date?
        var seconds: Double?
    }
}
