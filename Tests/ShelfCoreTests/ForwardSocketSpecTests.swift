// ForwardSocketSpecTests: forward specs with a unix socket at one end — OpenSSH's spellings parsed to a rule with
// port 0 at the socket's end and printed back alike; the rule's validation takes the path; bad paths are refused.
import ShelfCore
import XCTest

final class ForwardSocketSpecTests: XCTestCase {
    func testSocketSpecsParseAndPrintAsOpenSSHWritesThem() throws {
        let cases: [(ForwardKind, String, String)] = [
            (.local, "5555:/var/run/docker.sock", "127.0.0.1:5555:/var/run/docker.sock"),
            (.local, "0.0.0.0:5555:/run/x.sock", "0.0.0.0:5555:/run/x.sock"),
            (.remote, "/run/a.sock:/run/b.sock", "/run/a.sock:/run/b.sock"),
            (.remote, "8080:/run/b.sock", "127.0.0.1:8080:/run/b.sock"),
            (.remote, "/run/a.sock:localhost:80", "/run/a.sock:localhost:80"),
        ]
        for (kind, text, printed) in cases {
            let spec = try ForwardSpec.parse(text, kind: kind)
            XCTAssertEqual(spec.description, printed, text)
            XCTAssertTrue(spec.hasSocket, text)
            let rule = PortForwardRule(
                kind: kind, bindAddress: spec.bindAddress, bindPort: spec.bindPort,
                targetHost: spec.targetHost, targetPort: spec.targetPort)
            XCTAssertEqual(Validation.problems(rule), [], text)
            XCTAssertFalse(rule.listensOnNetwork && spec.listensOnSocket, text)
        }
        let docker = try ForwardSpec.parse("5555:/var/run/docker.sock", kind: .local)
        XCTAssertEqual([docker.listenPart, docker.targetPart], ["127.0.0.1:5555", "/var/run/docker.sock"])
        XCTAssertEqual(docker.targetPort, 0)
    }

    func testBadSocketSpecsAreRefusedSayingWhy() {
        for (text, why) in [
            ("5555:/run/\u{7}x", "target socket path contains a control character"),
            ("x:/run/a.sock", "bind port 'x' is not a number"),
            ("1:2:3:/run/a.sock", "wrong number of fields"),
        ] {
            XCTAssertThrowsError(try ForwardSpec.parse(text, kind: .local)) { error in
                let message = (error as? ValidationError)?.message ?? ""
                XCTAssertTrue(message.contains(why), message)
            }
        }
    }
}
