// The TUI with the user service running (docs/SERVICE.md): its background sync asks the service for a run (SIGUSR1)
// instead of running one of its own beside it, and its status line shows the service's runs.
import Foundation
import TestSupport
import XCTest

final class ServiceTUITests: XCTestCase {
    func testTheTUIAsksTheServiceToSyncAndShowsItsRuns() throws {
        let home = syncHome()
        XCTAssertExit(try home.run("vault", "init"), 0)
        let folder = home.root + "/shared"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        XCTAssertExit(try home.run("sync", "enable", "--folder", folder), 0)
        let service = try RunningService(home)
        let asked = "sync (asked by another sshelf)"
        let tui = try Tmux(home: home, columns: 140)
        // Opening the TUI asks for a run: the service runs it, and the line shows what it wrote.
        try eventually("the service's run for the TUI", context: { service.log }) {
            service.log.components(separatedBy: asked).count - 1 >= 1
        }
        try tui.waitFor(text: "✓ synced")
        let before = service.log.components(separatedBy: asked).count - 1
        try tui.send("S")
        try eventually("the service's run for S", context: { service.log + "\n" + ((try? tui.screen()) ?? "") }) {
            service.log.components(separatedBy: asked).count - 1 > before
        }
        try tui.waitFor(text: "✓ synced")
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }
}
