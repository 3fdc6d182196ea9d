// RunCommandReport: how a fleet run is reported — every distinct output once under the hosts that gave it (clush -b,
// dshbak), then one status line per host and a summary; or, with --json, one JSON object a line per host.
import FoundationEssentials
import ShelfCore
import ShelfOperations

enum RunReport {
    static let rule = "---------------"

    static func print(_ summary: FleetRun.Summary, context: AppContext) {
        for group in FleetReport.groups(summary.results) {
            context.output(
                "\(rule)\n\(group.hosts.map(Display.safe).joined(separator: ",")) (\(group.hosts.count))\n\(rule)\n")
            write(group.stdout, context: context)
            if !group.stderr.isEmpty {
                context.output("--- stderr\n")
                write(group.stderr, context: context)
            }
        }
        for result in summary.results { context.output(statusLine(result) + "\n") }
        context.output(summaryLine(summary) + "\n")
    }

    /// Remote output as it came (binary-safe), ending its last line so the next header starts on its own.
    private static func write(_ bytes: [UInt8], context: AppContext) {
        guard !bytes.isEmpty else { return }
        bytes.withUnsafeBytes { StandardStreams.write($0, fd: 1) }
        if bytes.last != 0x0A { context.output("\n") }
    }

    static func statusLine(_ result: FleetHostResult) -> String {
        "\(Display.safe(result.name)): \(status(result))"
    }

    /// How the host ended, in words: `exit 0 (0.31s)`, `unreachable: … (10.02s)`, `not started`.
    static func status(_ result: FleetHostResult) -> String {
        var facts: [String] = []
        if let seconds = result.seconds { facts.append(TextFormat.fixed(seconds, places: 2) + "s") }
        if result.warm { facts.append("warm") }
        if result.truncated { facts.append("output cut at \(FleetHostResult.outputLimit >> 20) MiB") }
        let tail = facts.isEmpty ? "" : " (\(facts.joined(separator: ", ")))"
        let error = result.error.map { ": " + Display.safe($0) } ?? ""
        switch result.outcome {
        case .succeeded, .failed:
            if let status = result.exitStatus { return "exit \(status)\(error)\(tail)" }
            return "failed\(error)\(tail)"
        case .notStarted:
            return "not started"
        default:
            return "\(result.outcome.rawValue.replacing("-", with: " "))\(error)\(tail)"
        }
    }

    static func summaryLine(_ summary: FleetRun.Summary) -> String {
        var counts: [String: Int] = [:]
        var order: [String] = []
        for result in summary.results {
            let word = result.outcome.rawValue
            if counts[word] == nil { order.append(word) }
            counts[word, default: 0] += 1
        }
        let total = summary.results.count
        var line =
            "\(total) host\(total == 1 ? "" : "s"): " + order.map { "\(counts[$0]!) \($0)" }.joined(separator: ", ")
        if summary.canaryStopped { line += "; a canary host failed, so the others were not started" }
        if summary.interrupts == 1 { line += "; interrupted: hosts not started were left alone, running ones finished" }
        if summary.interrupts > 1 { line += "; interrupted twice: running hosts were stopped" }
        return line
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
