// ForwardFormTests: the forward-rule form's Sessions field — a number saved on the rule, a bad one refused on its
// own line with Validation's words, and -R rules kept to one session.
import Foundation
import ShelfCore
import XCTest

@testable import ShelfUI

final class ForwardFormTests: XCTestCase {
    private func submit(_ values: [String: String]) -> Result<PortForwardRule, FormErrors> {
        let host = UUID()
        var form = Forms.forward(nil, hostID: host, hostName: "db")
        for (key, value) in values {
            guard let index = form.fields.firstIndex(where: { $0.key == key }) else {
                XCTFail("no field \(key)")
                continue
            }
            form.fields[index].value = value
        }
        return Forms.submitForward(form, original: nil, hostID: host)
    }

    private let local = ["kind": "local", "bindPort": "9000", "targetHost": "db.internal", "targetPort": "5432"]

    func testSessionsAreSavedOnTheRule() throws {
        let rule = try submit(local.merging(["sessions": "4"]) { $1 }).get()
        XCTAssertEqual(rule.sessions, 4)
        XCTAssertEqual(try submit(local.merging(["sessions": ""]) { $1 }).get().sessions, 1, "empty means one")
    }

    func testAnEditKeepsTheRulesSessions() {
        let rule = PortForwardRule(
            hostID: UUID(), kind: .local, bindPort: 9000, targetHost: "x", targetPort: 1, sessions: 3)
        let form = Forms.forward(rule, hostID: rule.hostID ?? UUID(), hostName: "db")
        XCTAssertEqual(form.value("sessions"), "3")
    }

    func testBadSessionsAreRefusedOnTheirLine() {
        for (text, words) in [
            ("0", "sessions must be 1 to"), ("17", "sessions must be 1 to"), ("four", "is not a number"),
        ] {
            guard case .failure(let errors) = submit(local.merging(["sessions": text]) { $1 }) else {
                XCTFail("sessions \(text) was accepted")
                continue
            }
            XCTAssertTrue(errors["sessions"]?.contains(words) == true, "\(text): \(errors)")
        }
        let remote = [
            "kind": "remote", "bindPort": "9000", "targetHost": "127.0.0.1", "targetPort": "80", "sessions": "2",
        ]
        guard case .failure(let errors) = submit(remote) else { return XCTFail("-R with 2 sessions was accepted") }
        XCTAssertTrue(errors["sessions"]?.contains("-L and -D") == true, "\(errors)")
    }
}
