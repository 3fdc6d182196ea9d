// TUIBenchmark: the in-program measurements bench/tui reports — start to first complete frame (store loaded
// and drawn), then each keystroke of a query until its filter finished and the frame is drawn, and resident
// memory. Not a test: timings vary by machine and are only written to the report file.
import Foundation

final class TUIBenchmark {
    let reportPath: String
    let query: String
    let started = DispatchTime.now()
    var lines: [String] = []

    init(reportPath: String, query: String) {
        self.reportPath = reportPath
        self.query = query
    }

    static func milliseconds(since start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1_000_000
    }

    func record(_ name: String, _ ms: Double) {
        lines.append("\(name)\t\(String(format: "%.2f", ms))")
    }

    /// VmRSS from /proc/self/status, in KiB.
    static var residentKiB: Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" })[1]) ?? 0
        }
        return 0
    }

    func write(hosts: Int) {
        var text = "hosts\t\(hosts)\n"
        text += lines.joined(separator: "\n") + "\n"
        text += "rss_kib\t\(TUIBenchmark.residentKiB)\n"
        try? text.write(toFile: reportPath, atomically: true, encoding: .utf8)
    }
}
