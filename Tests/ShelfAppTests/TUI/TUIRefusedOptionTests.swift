// TUIRefusedOptionTests: the details pane says of a kept line the installed ssh refuses what `show`, `check`, the
// import and the bridge say (ssh refuses it), not "OpenSSH only" — in real tmux, asking the real ssh.
import Foundation
import TestSupport
import XCTest

final class TUIRefusedOptionTests: XCTestCase {
    func testTheDetailsPaneSaysSSHRefusesTheLine() throws {
        let home = TempHome()
        let config = try home.write("Host odd\n  HostName 127.0.0.1\n  Frobnicate yes\n  ForwardX11 yes\n", to: "cfg")
        XCTAssertExit(try home.run("import", "ssh-config", config), 0)
        let tui = try Tmux(home: home, columns: 200, rows: 50)
        let screen = try tui.waitFor("the refused line marked") { screen in
            screen.split(separator: "\n").contains { $0.contains("Frobnicate yes") && $0.contains("ssh refuses it") }
        }
        let other = screen.split(separator: "\n").first { $0.contains("ForwardX11 yes") } ?? ""
        XCTAssertTrue(other.contains("OpenSSH only"), "a line ssh takes and sshelf's client cannot: \(screen)")
        XCTAssertFalse(
            screen.split(separator: "\n").contains { $0.contains("Frobnicate yes") && $0.contains("OpenSSH only") },
            screen)
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }
}
