// OpenSSHSessionLogTests: what is read from ssh's own log (OpenSSHSessionLog) when a server tries to write ssh's words
// into it — the key exchange is only a line that is ssh's `debug1: kex: algorithm:` from its start, and the first
// such line (written before a server can have a whole line of its own logged); ssh's own words are kept without
// its debug and verbose lines. The log text is ssh 9.2's, as `-E` writes it ("\r\n" line ends).
import XCTest

@testable import ShelfServices

final class OpenSSHSessionLogTests: XCTestCase {
    func testOnlySSHsOwnFirstKeyExchangeLineCounts() {
        let log =
            [
                "debug1: kex_exchange_identification: banner line 0: debug1: kex: algorithm: mlkem768x25519-sha256",
                "debug1: Remote protocol version 2.0, remote software version OpenSSH_9.2p1 kex: algorithm: "
                    + "sntrup761x25519-sha512@openssh.com",
                "debug1: SSH2_MSG_KEXINIT received",
                "debug1: kex: algorithm: curve25519-sha256",
                "debug1: kex: host key algorithm: ssh-ed25519",
                // Keyboard-interactive's name and instruction are logged as lines of their own, after the key exchange.
                "debug1: kex: algorithm: mlkem768x25519-sha256",
                "Authenticated to t ([127.0.0.1]:22) using \"publickey\".",
                "Warning: remote port forwarding failed for listen port 80",
                "Transferred: sent 2000, received 3000 bytes, in 0.1 seconds",
                "Connection to t closed.",
            ].joined(separator: "\r\n") + "\r\n"
        let read = OpenSSHSessionLog.read(log)
        XCTAssertEqual(read.keyExchange, "curve25519-sha256")
        XCTAssertTrue(read.loggedIn)
        XCTAssertEqual(
            String(decoding: read.said, as: UTF8.self), "Warning: remote port forwarding failed for listen port 80\n")
    }

    func testNoKeyExchangeWhenOnlyAServerSaidOne() {
        let log =
            "debug1: Remote protocol version 2.0, remote software version X kex: algorithm: "
            + "mlkem768x25519-sha256\r\nkex: algorithm: sntrup761x25519-sha512@openssh.com\r\n"
            + "debug1: kex: algorithm: (no match)\r\n"
        XCTAssertNil(OpenSSHSessionLog.read(log).keyExchange)
        XCTAssertFalse(OpenSSHSessionLog.read(log).loggedIn)
    }
}
