// DeferredLibrariesTests: libssh2, libcrypto and libsodium are opened when first needed, not at start (see
// scripts/deferred-libraries) — a command that does not connect never loads them (the dynamic loader's own trace
// says so), and when one cannot be loaded, the command that needs it says which and what to install. SQLite is
// linked from its static archive and is never loaded as a shared library at all.
import Foundation
import TestSupport
import XCTest

final class DeferredLibrariesTests: XCTestCase {
    static let deferred = ["libssh2.so", "libcrypto.so", "libsodium.so", "libz.so"]

    func testCommandsThatDoNotConnectNeverLoadTheSSHAndCryptoLibraries() throws {
        let home = TempHome()
        XCTAssertExit(try home.run("add", "web", "--host", "web.example.com"), 0)
        // LD_DEBUG=files makes the loader name every library it opens, at start or by dlopen, on standard error.
        home.extraEnvironment["LD_DEBUG"] = "files"
        for arguments in [["--version"], ["list"], ["list", "web"], ["show", "web"], ["export", "ssh-config"]] {
            let result = try home.run(arguments)
            XCTAssertExit(result, 0)
            XCTAssertTrue(
                result.stderr.contains("file=libc.so.6"), "the loader's trace is there: \(result.stderr.prefix(300))")
            for library in Self.deferred where result.stderr.contains("file=" + library) {
                XCTFail("sshelf \(arguments.joined(separator: " ")) loaded \(library)")
            }
        }
    }

    func testSQLiteIsPartOfTheBinaryNotASharedLibrary() throws {
        let home = TempHome()
        home.extraEnvironment["LD_DEBUG"] = "files"
        // Every command opens the store: adding a host writes it, listing reads it.
        for arguments in [["add", "web", "--host", "web.example.com"], ["list", "web"]] {
            let result = try home.run(arguments)
            XCTAssertExit(result, 0)
            XCTAssertTrue(
                result.stderr.contains("file=libc.so.6"), "the loader's trace is there: \(result.stderr.prefix(300))")
            XCTAssertFalse(
                result.stderr.contains("file=libsqlite3"),
                "sshelf \(arguments.joined(separator: " ")) loaded SQLite's shared library")
        }
        XCTAssertTrue(try home.run("list").stdout.contains("web.example.com"))
    }

    func testALibraryThatCannotBeLoadedIsNamedWithWhatToInstall() throws {
        let home = TempHome()
        // A listener that never answers: the TCP connection succeeds, so the next step is libssh2's.
        let listener = try SilentListener()
        XCTAssertExit(try home.run("add", "web", "--host", "127.0.0.1", "--port", String(listener.port)), 0)
        // The library's file is there but not a library: dlopen fails, as for a missing or broken package.
        let broken = try home.write("", to: "lib/libssh2.so.1")
        home.extraEnvironment["LD_LIBRARY_PATH"] = (broken as NSString).deletingLastPathComponent
        let result = try home.run("exec", "web", "--", "true")
        XCTAssertExit(result, 1)
        XCTAssertTrue(result.stderr.contains("sshelf: error: cannot load "), result.stderr)
        XCTAssertTrue(result.stderr.contains("from libssh2.so.1"), result.stderr)
        XCTAssertTrue(result.stderr.contains("sshelf: hint: install Debian's libssh2-1 package"), result.stderr)
    }

    func testAMissingLibraryInTheTUILeavesCursesBeforeTheErrorAndExit() throws {
        let home = TempHome()
        let listener = try SilentListener()
        XCTAssertExit(try home.run("add", "web", "--host", "127.0.0.1", "--port", String(listener.port)), 0)
        let broken = try home.write("", to: "lib/libssh2.so.1")
        let tui = try Tmux(home: home, environment: ["LD_LIBRARY_PATH": (broken as NSString).deletingLastPathComponent])
        try tui.waitFor(text: "1 host")
        XCTAssertEqual(
            try tui.tmux(["display-message", "-p", "-t", tui.session, "#{alternate_on}"]).output
                .trimmingCharacters(in: .whitespacesAndNewlines), "1", "the TUI runs on the alternate screen")
        try tui.send("Enter")
        XCTAssertEqual(try tui.waitForExit(), 1)
        // Curses was left: back on the user's own screen (not the TUI's), and the error and hint are on it. The pane
        // and what scrolled above it, wrapped lines joined (the message is longer than a line). A wait, all of it
        // in the condition: tmux may draw the last output a moment after the exit status was written.
        try eventually(
            "the user's own screen with the error and the hint, the TUI's screen gone",
            observe: {
                (
                    alternate: try tui.tmux(["display-message", "-p", "-t", tui.session, "#{alternate_on}"]).output
                        .trimmingCharacters(in: .whitespacesAndNewlines),
                    screen: try tui.tmux(["capture-pane", "-p", "-J", "-S", "-100", "-t", tui.session]).output
                )
            },
            until: {
                $0.alternate == "0" && $0.screen.contains("sshelf: error: cannot load ")
                    && $0.screen.contains("sshelf: hint: install Debian's libssh2-1 package")
                    && !$0.screen.contains("1 host")
            })
    }
}
