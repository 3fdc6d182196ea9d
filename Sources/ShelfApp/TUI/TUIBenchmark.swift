// TUIBenchmark: the in-program measurements `sshelf ui --benchmark-report` writes — start to the first frame
// with host rows, start to the whole catalog drawn, each keystroke of a query to its complete results drawn,
// and peak resident memory. The numbers the docs quote come from outside (bench/ptydrive measures what a
// terminal shows); these say where the time goes inside. Not a test: timings vary by machine.
import Dispatch
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfUI

final class TUIBenchmark {
    let reportPath: String
    let query: String
    let started = DispatchTime.now()
    var lines: [String] = []
    private var rowsDrawn = false

    init(reportPath: String, query: String) {
        self.reportPath = reportPath
        self.query = query
    }

    static func milliseconds(since start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1_000_000
    }

    /// CPU time of the whole process (every thread), so a busy machine does not inflate what a key costs.
    static func cpuMilliseconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) * 1000 + Double(time.tv_nsec) / 1_000_000
    }

    func record(_ name: String, _ ms: Double) {
        lines.append("\(name)\t\(TextFormat.fixed(ms, places: 2))")
    }

    /// Called after each frame: notes when host rows first showed.
    func frameDrawn(_ state: UIState) {
        if !rowsDrawn, state.loaded, !state.visible.isEmpty || state.catalog.totalCount == 0 {
            rowsDrawn = true
            record("rows_drawn_ms", TUIBenchmark.milliseconds(since: started))
        }
    }

    /// True once the whole catalog is loaded and drawn: the keystrokes start then.
    func isReady(_ state: UIState) -> Bool {
        guard state.loaded, state.catalog.isComplete else { return false }
        record("catalog_drawn_ms", TUIBenchmark.milliseconds(since: started))
        return true
    }

    /// A field of /proc/self/status, in KiB (VmHWM: the peak resident set).
    static func status(_ field: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" })[1]) ?? 0
        }
        return 0
    }

    func write(hosts: Int) {
        var text = "hosts\t\(hosts)\n"
        text += lines.joined(separator: "\n") + "\n"
        text += "rss_kib\t\(TUIBenchmark.status("VmRSS"))\nhwm_kib\t\(TUIBenchmark.status("VmHWM"))\n"
        try? text.write(toFile: reportPath, atomically: true, encoding: .utf8)
    }
}
