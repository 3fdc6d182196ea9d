// CopyReport: one host's line of `sshelf cp` — what it copied (and into which folder, from several hosts), the files
// it could not copy and why, and every temporary file a failure or a stop could not remove, with its path.
import ShelfCore
import ShelfOperations

enum CopyReport {
    /// Files not copied listed on a host's line; more are counted.
    static let listed = 10

    /// Puts what `copy` did into the host's result: a note when it succeeded, else everything in its error.
    static func describe(_ copy: FleetCopy, into result: inout FleetHostResult, folder: String?) {
        let into = folder.map { " into \($0)" } ?? ""
        let copied = "copied \(copy.files) file\(copy.files == 1 ? "" : "s"), \(Bytes.text(copy.bytes))\(into)"
        guard result.outcome != .succeeded else {
            result.note = copied
            return
        }
        var parts = result.error.map { [$0] } ?? []
        let problems = copy.problems
        if problems.count == 1 && parts.isEmpty && copy.files == 0 {
            parts.append(problems[0])
        } else if !problems.isEmpty {
            let more = problems.count > listed ? "; and \(problems.count - listed) more" : ""
            parts.append("not copied: " + problems.prefix(listed).joined(separator: "; ") + more)
        }
        if copy.files > 0 { parts.append(copied) }
        let onHost = copy.leftovers.filter(\.onHost).map { $0.path.hasPrefix("/") ? $0.path : "~/" + $0.path }
        if !onHost.isEmpty {
            parts.append(
                "left behind on the host (it could not be reached to remove it): " + onHost.joined(separator: ", "))
        }
        let here = copy.leftovers.filter { !$0.onHost }.map(\.path)
        if !here.isEmpty { parts.append("left behind here (it could not be removed): " + here.joined(separator: ", ")) }
        result.error = parts.joined(separator: "; ")
    }

    static func line(_ result: FleetHostResult) -> String {
        result.outcome == .succeeded
            ? "\(Display.safe(result.name)): \(Display.safe(result.note ?? "copied"))" : FleetReport.statusLine(result)
    }
}
