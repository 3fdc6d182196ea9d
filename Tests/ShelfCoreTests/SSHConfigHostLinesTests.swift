// SSHConfigHostLinesTests: which lines of a user's ssh_config apply to a name (as ssh applies them, Match left out),
// and the bridge written against them (the transparency rule): a forward in the user's spelling and order, the
// user's ProxyCommand for the jump an import made of it, a SendEnv the user's file sends left to it — and without
// the user's file in view, the bridge as before.
import Foundation
import ShelfCore
import XCTest

final class SSHConfigHostLinesTests: XCTestCase {
    func view(_ text: String) throws -> SSHConfigHostLines {
        let source = SSHConfigSource(read: { _ in text }, glob: { [$0] }, homeDirectory: "/home/u")
        return SSHConfigHostLines(try SSHConfigReader.read(path: "/home/u/.ssh/config", source: source))
    }

    func testLinesForANameFollowHostMatchingInFileOrder() throws {
        let lines = try view(
            """
            Compression yes
            Host web1 web1.prod
                User alice
            Match exec "true"
                User matched
            Host web* !web2
                Port 2222
            Host other
                User bob
            Host *
                SendEnv LANG
            """)
        XCTAssertEqual(
            lines.lines(for: "WEB1").map { "\($0.keyword) \($0.arguments.joined(separator: " "))" },
            ["Compression yes", "User alice", "Port 2222", "SendEnv LANG"])
        XCTAssertEqual(lines.lines(for: "web2").map(\.keyword), ["Compression", "SendEnv"])
        XCTAssertTrue(lines.defines("web1.prod"))
        XCTAssertFalse(lines.defines("web3"))
    }

    func testTheBridgeWritesWhatTheUsersFileSaysItsWay() throws {
        let bastion = Host(name: "bastion", hostname: "10.0.0.9")
        let web = Host(name: "web1", hostname: "10.0.0.1", options: ["SendEnv FOO", "SendEnv BAR"])
        let db = Host(name: "db1", hostname: "10.0.0.2", jumpHostIDs: [bastion.id])
        let rules = [
            PortForwardRule(hostID: web.id, kind: .dynamic, bindPort: 1080),
            PortForwardRule(hostID: web.id, kind: .local, bindPort: 18080, targetHost: "localhost", targetPort: 80),
            PortForwardRule(hostID: web.id, kind: .local, bindPort: 18081, targetHost: "localhost", targetPort: 81),
        ]
        let input = SSHConfigEmitter.Input(hosts: [bastion, web, db], identities: [], rules: rules, groups: [])
        let user = try view(
            """
            Host web1
                LocalForward 18080 localhost:80
                DynamicForward 1080
                SendEnv FOO
            Host db1
                ProxyCommand ssh -W %h:%p bastion
            """)
        let bridge = SSHConfigEmitter.Bridge(agentSocket: "/a", pinsFile: "/p", publicKeyFiles: [:], userConfig: user)
        let text = SSHConfigEmitter.emitBridge(input, bridge: bridge)
        XCTAssertTrue(
            text.contains(
                """
                Host web1
                    HostName 10.0.0.1
                    SendEnv BAR

                """), text)
        // sshelf's forward rules are sshelf's to run: the bridge writes none (the user's file gives its own).
        XCTAssertFalse(text.contains("Forward"), text)
        // The user's file defines db1 and gives its jump (a ProxyCommand): that decides, the bridge yields.
        XCTAssertTrue(text.contains("Host db1\n    HostName 10.0.0.2\n\n"), text)
        XCTAssertFalse(text.contains("ProxyJump"), text)
        XCTAssertFalse(text.contains("ProxyCommand"), text)
        // Not included by the user's file: the bridge is read alone and writes everything its own way.
        let alone = SSHConfigEmitter.emitBridge(
            input,
            bridge: SSHConfigEmitter.Bridge(
                agentSocket: "/a", pinsFile: "/p",
                publicKeyFiles: [:]))
        XCTAssertFalse(alone.contains("Forward"), alone)
        // `forward start --openssh`'s own config (writesForwardRules) is the one that runs them through ssh.
        let forwardRun = SSHConfigEmitter.emitBridge(
            input,
            bridge: SSHConfigEmitter.Bridge(
                agentSocket: "/a", pinsFile: "/p", publicKeyFiles: [:], writesForwardRules: true))
        XCTAssertTrue(
            forwardRun.contains("    DynamicForward 127.0.0.1:1080\n    LocalForward 127.0.0.1:18080 localhost:80\n"),
            forwardRun)
        XCTAssertTrue(alone.contains("    SendEnv FOO\n    SendEnv BAR\n"), alone)
        XCTAssertTrue(alone.contains("    ProxyJump bastion\n"), alone)
    }
}
