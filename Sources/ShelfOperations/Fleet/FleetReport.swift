// FleetReport: a run's results folded for reading, as clush -b and dshbak do — every distinct output once, with
// the hosts that printed it — and the counts the summary line and the exit status come from.
import FoundationEssentials

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
}
