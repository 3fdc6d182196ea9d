// ForwardSocketTests: a -L rule to a unix socket on the server, against a real sshd (AllowStreamLocalForwarding):
// with libssh2 1.11 it carries bytes both ways through direct-streamlocal to a socket a test server listens on; with
// 1.10 (found out the way the product does, LibSSH2.features) the engine refuses it with the library's version and
// both ways out. Rules no libssh2 can run (a socket listening on the server) are refused naming --openssh.
import Foundation
import ShelfCore
@testable import ShelfSSH
import TestSupport
import XCTest

final class ForwardSocketTests: XCTestCase {
    func testLocalForwardToAServerSocketCarriesBytesOrIsRefusedWithTheLibrary() throws {
        let directory = "/tmp/sshelf-sock-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o755])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let target = try UnixReverseServer(path: directory + "/reverse.sock")
        let rule = PortForwardRule(kind: .local, bindPort: try TrafficSocket.freePort(), targetHost: target.path)
        var options = SSHD.Options()
        options.extraConfig = ["AllowStreamLocalForwarding yes"]
        let sshd = try SSHD.start(options)
        guard LibSSH2.features.unixSocketForwards else {
            XCTAssertThrowsError(try RunningForwards([rule], sshd: sshd)) { error in
                let refusal = error as? SSHError
                let text = "\(refusal?.message ?? "\(error)") \(refusal?.hint ?? "")"
                for part in [
                    "-L 127.0.0.1:\(rule.bindPort):\(target.path) forwards to a unix socket on the server",
                    "needs libssh2 1.11 or later", "runs libssh2 \(LibSSH2.version)", "libssh2-1t64",
                    "sshelf forward start --openssh target",
                ] {
                    XCTAssertTrue(text.contains(part), "missing '\(part)' in: \(text)")
                }
            }
            return
        }
        let forwards = try RunningForwards([rule], sshd: sshd)
        defer { forwards.stop() }
        let payload = Payload.random(2 << 20)
        let reply = try TrafficSocket.roundTrip(port: forwards.port(rule), payload)
        XCTAssertEqual(reply.count, payload.count, sshd.log)
        XCTAssertEqual(try Payload.sha256(reply), try Payload.sha256(payload.reversed()))
        XCTAssertEqual(
            try TrafficSocket.roundTrip(port: forwards.port(rule), Array("socket".utf8)), Array("tekcos".utf8))
        let status = try forwards.status { $0.totalConnections == 2 && $0.activeConnections == 0 }
        XCTAssertEqual(status.bytesIn, Int64(payload.count + 6))
    }

    func testSocketRulesNoLibraryCanRunAreRefusedNamingOpenSSH() {
        let rules = [
            PortForwardRule(kind: .remote, bindAddress: "/run/a.sock", targetHost: "/run/b.sock"),
            PortForwardRule(kind: .remote, bindPort: 8080, targetHost: "/run/b.sock"),
            PortForwardRule(kind: .local, bindAddress: "/tmp/here.sock", targetHost: "db", targetPort: 5432),
        ]
        for rule in rules {
            let refusal = SocketForwardSupport.refusal(rule, hostName: "build")
            let text = "\(refusal?.message ?? "none") \(refusal?.hint ?? "")"
            XCTAssertTrue(text.contains("-\(rule.spec.flag) \(rule.spec)"), text)
            XCTAssertTrue(text.contains("which sshelf's own client cannot do with any libssh2"), text)
            let id = rule.id.uuidString.lowercased().prefix(8)
            XCTAssertTrue(text.contains("sshelf forward start --openssh build \(id)"), text)
        }
        let tcp = PortForwardRule(kind: .remote, bindPort: 8080, targetHost: "localhost", targetPort: 80)
        XCTAssertNil(SocketForwardSupport.refusal(tcp, hostName: "build"))
    }
}
