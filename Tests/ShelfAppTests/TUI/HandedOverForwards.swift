// HandedOverForwards: stops the `forward start` processes a test's TUI handed over when it quit — they outlive the
// TUI by design, so a test that fails before its own `t` would otherwise leave tunnels running on a shared machine.
import Foundation
import TestSupport
import XCTest

extension XCTestCase {
    /// At the end of the test, SIGTERM to every `forward start` that publishes in this home's runtime directory.
    func stopHandedOverForwards(_ home: TempHome) {
        addTeardown {
            let runtime = home.sshelfHome + "/run"
            let prefix = "forward-start-"
            for name in (try? FileManager.default.contentsOfDirectory(atPath: runtime)) ?? []
            where name.hasPrefix(prefix) && name.hasSuffix(".json") {
                guard let pid = Int32(name.dropFirst(prefix.count).dropLast(".json".count)),
                    let arguments = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline")),
                    String(decoding: arguments, as: UTF8.self).contains("forward\0start")
                else { continue }
                kill(pid, SIGTERM)
            }
        }
    }
}
