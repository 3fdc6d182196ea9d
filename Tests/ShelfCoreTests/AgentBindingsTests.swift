// AgentBindingsTests: the host-bound agent's rules without a server — session-binds recorded as OpenSSH's agent
// records them (a repeat is nothing new, a session under another key or a binding after a login is refused), and
// a bound key signing only a login of the last bound session, to one of its hosts as its user, forwarded only
// through its hosts. The paths plain ssh cannot reach (it is never offered the key there) are checked here.
import ShelfCore
import XCTest

final class AgentBindingsTests: XCTestCase {
    let one: [UInt8] = Array("host key one".utf8)
    let two: [UInt8] = Array("host key two".utf8)
    let elsewhere: [UInt8] = Array("host key elsewhere".utf8)
    let key: [UInt8] = Array("user key".utf8)

    var hosts: [AgentBoundHost] {
        [
            AgentBoundHost(name: "one", user: "", hostKey: one),
            AgentBoundHost(name: "two", user: "deploy", hostKey: two),
        ]
    }

    func bind(_ hostKey: [UInt8], _ session: String, forwarding: Bool) -> AgentSessionBind {
        AgentSessionBind(hostKey: hostKey, sessionID: Array(session.utf8), signature: [], forwarding: forwarding)
    }

    /// What ssh signs to log in: the session id first, then the request (host-bound when `hostKey` is given).
    func login(_ session: String, user: String, hostKey: [UInt8]?, key: [UInt8]? = nil) -> [UInt8] {
        var data = SSHWire.string(Array(session.utf8)) + [50] + SSHWire.string(user) + SSHWire.string("ssh-connection")
        data += SSHWire.string(hostKey == nil ? "publickey" : "publickey-hostbound-v00@openssh.com") + [1]
        data += SSHWire.string("ssh-ed25519") + SSHWire.string(key ?? self.key)
        if let hostKey { data += SSHWire.string(hostKey) }
        return data
    }

    func testBindingsAreRecordedAsOpenSSHsAgentRecordsThem() {
        var bindings = AgentBindings()
        XCTAssertEqual(bindings.record(bind(one, "s1", forwarding: true), verified: true), .recorded)
        XCTAssertEqual(bindings.record(bind(one, "s1", forwarding: true), verified: true), .known)
        guard case .refused = bindings.record(bind(two, "s1", forwarding: true), verified: true) else {
            return XCTFail("one session under two host keys")
        }
        XCTAssertEqual(bindings.record(bind(two, "s2", forwarding: false), verified: true), .recorded)
        guard case .refused = bindings.record(bind(elsewhere, "s3", forwarding: false), verified: true) else {
            return XCTFail("a binding after the login binding")
        }
        XCTAssertEqual(bindings.hops.map(\.forwarding), [true, false])

        var unverified = AgentBindings()
        guard case .refused = unverified.record(bind(one, "s1", forwarding: false), verified: false) else {
            return XCTFail("a signature that does not verify")
        }
        XCTAssertEqual(
            unverified.refusal(signing: login("s1", user: "u", hostKey: nil), keyBlob: key, boundTo: hosts),
            .bindFailed, "after a failed binding, a bound key is refused")
        XCTAssertEqual(unverified.listRefusal(boundTo: hosts), .bindFailed)

        var many = AgentBindings()
        for index in 0..<AgentBindings.maximumHops {
            XCTAssertEqual(many.record(bind(one, "s\(index)", forwarding: true), verified: true), .recorded)
        }
        guard case .refused = many.record(bind(one, "last", forwarding: false), verified: true) else {
            return XCTFail("more hops than OpenSSH's agent records")
        }
    }

    func testALoginIsSignedOnlyForTheBoundSessionToABoundHostAsItsUser() {
        let unbound = AgentBindings()
        XCTAssertEqual(
            unbound.refusal(signing: login("s", user: "u", hostKey: nil), keyBlob: key, boundTo: hosts),
            .unbound)
        XCTAssertNil(unbound.listRefusal(boundTo: hosts), "listed for local use (ssh-add -l)")

        var direct = AgentBindings()
        _ = direct.record(bind(one, "s1", forwarding: false), verified: true)
        XCTAssertNil(direct.refusal(signing: login("s1", user: "anyone", hostKey: one), keyBlob: key, boundTo: hosts))
        XCTAssertNil(direct.refusal(signing: login("s1", user: "anyone", hostKey: nil), keyBlob: key, boundTo: hosts))
        XCTAssertEqual(
            direct.refusal(signing: login("s0", user: "u", hostKey: one), keyBlob: key, boundTo: hosts),
            .otherSession)
        XCTAssertEqual(
            direct.refusal(signing: login("s1", user: "u", hostKey: two), keyBlob: key, boundTo: hosts),
            .hostKeyMismatch)
        XCTAssertEqual(
            direct.refusal(
                signing: login("s1", user: "u", hostKey: one, key: two), keyBlob: key,
                boundTo: hosts), .notALogin, "a login with another key")
        XCTAssertEqual(direct.refusal(signing: Array("not a login".utf8), keyBlob: key, boundTo: hosts), .notALogin)

        var toTwo = AgentBindings()
        _ = toTwo.record(bind(two, "s2", forwarding: false), verified: true)
        XCTAssertNil(toTwo.refusal(signing: login("s2", user: "deploy", hostKey: two), keyBlob: key, boundTo: hosts))
        XCTAssertEqual(
            toTwo.refusal(signing: login("s2", user: "root", hostKey: two), keyBlob: key, boundTo: hosts),
            .wrongUser(user: "root", allowed: ["deploy"]))

        var toElsewhere = AgentBindings()
        _ = toElsewhere.record(bind(elsewhere, "s3", forwarding: false), verified: true)
        XCTAssertEqual(
            toElsewhere.refusal(
                signing: login("s3", user: "u", hostKey: elsewhere), keyBlob: key,
                boundTo: hosts), .destinationNotBound(hostKey: elsewhere))
        XCTAssertEqual(toElsewhere.listRefusal(boundTo: hosts), .destinationNotBound(hostKey: elsewhere))
    }

    func testAForwardedAgentSignsOnlyWhenEveryHopIsABoundHost() {
        var through = AgentBindings()
        _ = through.record(bind(one, "s1", forwarding: true), verified: true)
        XCTAssertNil(through.listRefusal(boundTo: hosts), "ssh-add -l on one: listed")
        XCTAssertEqual(
            through.refusal(signing: login("s1", user: "u", hostKey: one), keyBlob: key, boundTo: hosts),
            .signOnForwardingHop)
        _ = through.record(bind(two, "s2", forwarding: false), verified: true)
        XCTAssertNil(through.refusal(signing: login("s2", user: "deploy", hostKey: two), keyBlob: key, boundTo: hosts))
        XCTAssertEqual(
            through.refusal(
                signing: login("s2", user: "deploy", hostKey: nil), keyBlob: key,
                boundTo: hosts), .hostKeyMismatch, "beyond the first hop the login must name the server")

        var viaElsewhere = AgentBindings()
        _ = viaElsewhere.record(bind(elsewhere, "s1", forwarding: true), verified: true)
        _ = viaElsewhere.record(bind(two, "s2", forwarding: false), verified: true)
        XCTAssertEqual(
            viaElsewhere.refusal(
                signing: login("s2", user: "deploy", hostKey: two), keyBlob: key,
                boundTo: hosts), .hopNotBound(index: 0, hostKey: elsewhere))
        XCTAssertEqual(viaElsewhere.listRefusal(boundTo: hosts), .hopNotBound(index: 0, hostKey: elsewhere))
    }
}
