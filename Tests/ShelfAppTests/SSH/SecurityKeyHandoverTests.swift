// SecurityKeyHandoverTests: a host whose identity is a FIDO security key (an `sk-` public key beside its
// IdentityFile, as `ssh-keygen -t ed25519-sk` writes it) goes to OpenSSH's ssh on either library — sshelf's own client
// does not use those keys — with the one line that says why (the decision the TUI's Enter shares). No token here:
// `--dry-run` shows the ssh that would run instead of running it.
import Foundation
import TestSupport
import XCTest

final class SecurityKeyHandoverTests: XCTestCase {
    /// An OpenSSH `sk-ssh-ed25519@openssh.com` public key line: the key type, a 32-byte key, the application.
    private static func securityKeyLine() -> String {
        func field(_ bytes: [UInt8]) -> [UInt8] {
            let count = UInt32(bytes.count)
            return [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: count >> $0) } + bytes
        }
        let type = "sk-ssh-ed25519@openssh.com"
        let blob =
            field(Array(type.utf8)) + field((0..<32).map { _ in UInt8.random(in: 0...255) })
            + field(Array("ssh:".utf8))
        return "\(type) \(Data(blob).base64EncodedString()) token@laptop"
    }

    func testASecurityKeyHostIsHandedToOpenSSHSayingWhy() throws {
        let home = TempHome()
        _ = try home.write("(a token's key handle, never read here)\n", to: ".ssh/id_token")
        _ = try home.write(Self.securityKeyLine() + "\n", to: ".ssh/id_token.pub")
        let config = try home.write(
            """
            Host fido
              HostName 127.0.0.1
              User someone
              IdentityFile ~/.ssh/id_token
            """, to: ".ssh/config-fido")
        XCTAssertExit(try home.run("import", "ssh-config", config), 0)

        let connect = try home.run("connect", "fido", "--dry-run")
        XCTAssertExit(connect, 0)
        XCTAssertTrue(
            connect.stderr.contains(
                "sshelf: note: fido logs in with the FIDO security key of identity 'id_token', which "
                    + "sshelf's own client "
                    + "does not use; handing the session to OpenSSH's ssh with the sshelf agent"), connect.stderr)
        XCTAssertTrue(connect.stdout.contains("\(TestTool.ssh.path) -F "), connect.stdout)
        XCTAssertTrue(connect.stdout.hasSuffix(" fido\n"), connect.stdout)
    }
}
