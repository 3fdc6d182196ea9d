// AgentAbuseTests: the real agent against a client that misbehaves — many idle connections from one process lock
// nobody out (ssh-add and `ssh-keygen -Y sign` still work), and wrong unlock passphrases from ssh-add -X back off,
// the count starting again after a right one. The rules themselves, on a moved clock, are AgentLimitsTests'.
import Foundation
import TestSupport
import XCTest

final class AgentAbuseTests: XCTestCase {
    /// A connection to the agent's socket that sends nothing; closed by the caller.
    func idleConnection(_ path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() where index < buffer.count - 1 { buffer[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw HarnessError("connect \(path): \(reason)")
        }
        return fd
    }

    func testIdleConnectionsOfOneProcessLockNobodyOut() throws {
        let world = try AgentWorld()
        let made = try world.home.run(["keygen", "mine"])
        XCTAssertExit(made, 0)
        try world.startAgent()
        // Twice as many idle connections as the agent serves at once, all from this test process.
        var held: [Int32] = []
        defer { for fd in held { close(fd) } }
        for _ in 0..<128 { held.append(try idleConnection(world.socket)) }
        try world.waitForAgentLog("idle longest, to make room for")

        let listed = try world.sshAdd(["-l"])
        XCTAssertExit(listed, 0)
        XCTAssertTrue(listed.stdout.contains(" mine (ED25519)"), listed.stdout)
        let pub = try world.home.write(made.stdout, to: "mine.pub")
        let data = try world.home.write("to sign\n", to: "data.txt")
        XCTAssertExit(try world.tool(TestTool.sshKeygen.path, ["-Y", "sign", "-f", pub, "-n", "file", data]), 0)
        try world.waitForAgentLog("signed with key 'mine'")
        XCTAssertFalse(world.agentLog.contains("refused a connection"), world.agentLog)
    }

    func testWrongUnlockPassphrasesBackOffAndARightOneStartsTheCountAgain() throws {
        let world = try AgentWorld()
        XCTAssertExit(try world.home.run(["keygen", "mine"]), 0)
        try world.startAgent()
        func askpass(_ answer: String) throws -> [String: String] {
            let script = try world.home.write("#!/bin/sh\necho '\(answer)'\n", to: "askpass-\(answer)")
            chmod(script, 0o700)
            return ["SSH_ASKPASS": script, "SSH_ASKPASS_REQUIRE": "force", "DISPLAY": ":0"]
        }
        XCTAssertExit(try world.sshAdd(["-x"], environment: try askpass("lock-it")), 0)
        let wrong = try askpass("guess")
        XCTAssertNotEqual(try world.sshAdd(["-X"], environment: wrong).status, 0)
        try world.waitForAgentLog("1 wrong in a row, the next try waits 1 s")
        XCTAssertNotEqual(try world.sshAdd(["-X"], environment: wrong).status, 0)
        try world.waitForAgentLog("2 wrong in a row, the next try waits 2 s")
        XCTAssertNotEqual(try world.sshAdd(["-X"], environment: wrong).status, 0)
        try world.waitForAgentLog("3 wrong in a row, the next try waits 4 s")
        XCTAssertEqual(try world.sshAdd(["-l"]).status, 1, "still locked")

        XCTAssertExit(try world.sshAdd(["-X"], environment: try askpass("lock-it")), 0)
        try world.waitForAgentLog("unlocked the agent")
        XCTAssertExit(try world.sshAdd(["-l"]), 0)

        // The count starts again: locked anew, one wrong try waits 1 s again.
        XCTAssertExit(try world.sshAdd(["-x"], environment: try askpass("lock-it")), 0)
        XCTAssertNotEqual(try world.sshAdd(["-X"], environment: wrong).status, 0)
        try eventually("a second '1 wrong in a row' line", context: { tail(world.agentLog) }) {
            world.agentLog.components(separatedBy: "1 wrong in a row, the next try waits 1 s").count == 3
        }
    }
}
