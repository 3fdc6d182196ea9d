// FleetReport: a run's results folded for reading, as clush -b and dshbak do — every distinct output once, with
// the hosts that printed it — the counts the exit status comes from, and each host's status and the summary line in
// words (`sshelf run`, `cp` and the TUI's run pane say them alike).
import FoundationEssentials
import ShelfCore

public enum FleetReport {
    /// One distinct output (stdout and stderr both the same) and the hosts, in run order, that gave it.
    public struct OutputGroup: Sendable {
        public var hosts: [String]
        public var stdout: [UInt8]
        public var stderr: [UInt8]
    }

    /// The outputs of the hosts that ran the command, largest group first (ties: first seen first). Hosts that did
    /// not run it, or printed nothing, are left out.
    public static func groups(_ results: [FleetHostResult]) -> [OutputGroup] {
        var groups: [OutputGroup] = []
        var index: [[UInt8]: Int] = [:]
        for result in results where !(result.stdout.isEmpty && result.stderr.isEmpty) {
            let key = result.stdout + [0] + result.stderr + [result.stderr.isEmpty ? 0 : 1]
            if let at = index[key] {
                groups[at].hosts.append(result.name)
            } else {
                index[key] = groups.count
                groups.append(OutputGroup(hosts: [result.name], stdout: result.stdout, stderr: result.stderr))
            }
        }
        return groups.enumerated().sorted {
            ($0.element.hosts.count, -$0.offset) > ($1.element.hosts.count, -$1.offset)
        }
        .map(\.element)
    }

    /// The exit status of the whole run (docs/FLEET.md): 0 when every host succeeded; 255 when any host was not
    /// reached, was refused for its key, could not log in or timed out; 1 otherwise (a command failed, a canary
    /// stopped the run, Ctrl-C stopped it).
    public static func exitStatus(_ results: [FleetHostResult]) -> Int32 {
        if results.contains(where: { $0.outcome.isConnectionFailure }) { return 255 }
        return results.allSatisfy { $0.outcome == .succeeded } ? 0 : 1
    }

    public static func statusLine(_ result: FleetHostResult) -> String {
        "\(Display.safe(result.name)): \(status(result))"
    }

    /// How the host ended, in words: `exit 0 (0.31s)`, `unreachable: … (10.02s)`, `not started`.
    public static func status(_ result: FleetHostResult) -> String {
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

    public static func summaryLine(_ summary: FleetRun.Summary) -> String {
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
        if summary.interrupts > 0 && summary.stopsAtFirst {
            line += "; interrupted: hosts not started were left alone, running ones were stopped"
        } else if summary.interrupts == 1 {
            line += "; interrupted: hosts not started were left alone, running ones finished"
        } else if summary.interrupts > 1 {
            line += "; interrupted twice: running hosts were stopped"
        }
        return line
    }
}
