// ForwardChildLogTests: when the forward supervisor calls a rule run through OpenSSH's ssh "active"
// (OpenSSHForwardChild.LogLines) — not at "Authenticated to", when ssh has not bound its listeners yet and a
// connection to the port is refused, but once ssh says it entered its session (every local and dynamic listener
// bound) and the server said yes to every remote rule. The lines are ssh 9.2's at LogLevel DEBUG1.
import XCTest

@testable import ShelfServices

final class ForwardChildLogTests: XCTestCase {
    private static let login = [
        "debug1: kex: algorithm: sntrup761x25519-sha512@openssh.com",
        "Authenticated to t ([127.0.0.1]:2222) using \"publickey\".",
        "debug1: Local connections to LOCALHOST:4100 forwarded to remote address 127.0.0.1:80",
        "debug1: Local forwarding listening on 127.0.0.1 port 4100.",
    ]

    private func read(_ lines: [String], remoteForwards: Int = 0) -> OpenSSHForwardChild.LogLines {
        var reader = OpenSSHForwardChild.LogLines(remoteForwards: remoteForwards)
        reader.take(ArraySlice(Array((lines.joined(separator: "\r\n") + "\r\n").utf8)))
        return reader
    }

    func testLoggedInIsNotYetForwarding() {
        let reader = read(Self.login)
        XCTAssertTrue(reader.loggedIn)
        XCTAssertFalse(reader.forwarding, "the listeners are bound only when ssh enters its session")
        XCTAssertEqual(reader.keyExchange, "sntrup761x25519-sha512@openssh.com")
    }

    func testLocalRulesAreUpOnceSSHEntersItsSession() {
        XCTAssertTrue(read(Self.login + ["debug1: Entering interactive session."]).forwarding)
        XCTAssertFalse(
            read(["debug1: Entering interactive session."]).forwarding, "not before ssh has logged in")
    }

    func testRemoteRulesWaitForTheServersYesToEach() {
        let entered = Self.login + ["debug1: Entering interactive session."]
        let yes = "debug1: remote forward success for: listen 127.0.0.1:5100, connect 127.0.0.1:22"
        XCTAssertFalse(read(entered, remoteForwards: 2).forwarding)
        XCTAssertFalse(read(entered + [yes], remoteForwards: 2).forwarding, "one of two confirmed")
        XCTAssertFalse(
            read(
                entered + [yes, "debug1: remote forward failure for: listen 127.0.0.1:5101, connect 127.0.0.1:22"],
                remoteForwards: 2
            ).forwarding, "a refusal is not a yes")
        XCTAssertTrue(read(entered + [yes, yes], remoteForwards: 2).forwarding)
    }
}
