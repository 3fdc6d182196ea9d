// UnlockGuardNamesTests: the bridge's unlock guard hands ssh's %n (the host name as typed) to sh inside single
// quotes, so a host name holding shell syntax, synced from another device or typed, is never run as a command: a
// name with a quote of its own, or one sshelf would read as an option, is left to the older agent check.
import Foundation
import ShelfCore
import XCTest

final class UnlockGuardNamesTests: XCTestCase {
    func testOnlyNamesThatStayInsideTheQuotesAreGuarded() throws {
        let id = UUID()
        let identity = Identity(id: id, name: "k", privateKeyRef: .identityPrivateKey(id))
        let names = ["db1", "x;touch${IFS}pwned", "it's", "-oProxyCommand=x"]
        let hosts = names.map { Host(name: $0, hostname: "10.0.0.1", identityID: identity.id) }
        let input = SSHConfigEmitter.Input(hosts: hosts, identities: [identity], rules: [], groups: [])
        let bridge = SSHConfigEmitter.Bridge(
            agentSocket: "/run/a", pinsFile: "/p", publicKeyFiles: [identity.id: "/k.pub"], sshelfProgram: "/bin/sshelf"
        )
        let text = SSHConfigEmitter.emitBridge(input, bridge: bridge)
        let guardLine = try XCTUnwrap(text.split(separator: "\n").first { $0.hasPrefix("Match originalhost") })
        let command = "exec \"'/bin/sshelf' agent ensure-unlocked '%n' '/run/a'\""
        XCTAssertTrue(guardLine.hasSuffix(command), "\(guardLine)")
        let guarded = guardLine.split(separator: " ")[2].split(separator: ",").map(String.init)
        XCTAssertTrue(guarded.contains("db1"), "\(guarded)")
        XCTAssertTrue(guarded.contains("x;touch${IFS}pwned"), "quoted for sh, so guarded: \(guarded)")
        XCTAssertFalse(guarded.contains { $0.contains("'") || $0.hasPrefix("-") }, "\(guarded)")
    }
}
