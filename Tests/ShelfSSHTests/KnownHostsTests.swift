// KnownHostsTests: parsing OpenSSH known_hosts — plain, hashed (made by ssh-keygen -H), [host]:port, wildcards,
// negation, @revoked — and rewrites that keep every line they could not parse, written atomically with 0600.
@testable import ShelfSSH
import ShelfCore
import TestSupport
import XCTest

final class KnownHostsTests: XCTestCase {
    var key: HostKey!
    var other: HostKey!
    var line: String!

    override func setUpWithError() throws {
        let a = try TestKey.generate(.ed25519), b = try TestKey.generate(.ecdsa)
        let pa = a.publicLine.split(separator: " ").map(String.init),
            pb = b.publicLine.split(separator: " ").map(String.init)
        key = HostKey(type: pa[0], base64: pa[1])
        other = HostKey(type: pb[0], base64: pb[1])
        line = "\(pa[0]) \(pa[1])"
    }

    func testPlainPortAndWildcardPatterns() {
        let file = KnownHostsFile(
            text: """
                example.com,10.0.0.1 \(line!)
                [example.com]:2222 \(line!)
                *.corp.example,!bad.corp.example \(line!)
                """)
        XCTAssertEqual(file.entries(for: "example.com").count, 1)
        XCTAssertEqual(file.entries(for: "10.0.0.1").count, 1)
        XCTAssertEqual(file.entries(for: "[example.com]:2222").count, 1)
        XCTAssertEqual(file.entries(for: "[example.com]:2223").count, 0)
        XCTAssertEqual(file.entries(for: "db.corp.example").count, 1)
        XCTAssertEqual(file.entries(for: "bad.corp.example").count, 0)
        XCTAssertEqual(KnownHostsFile.lookupName(host: "h", port: 22), "h")
        XCTAssertEqual(KnownHostsFile.lookupName(host: "h", port: 2200), "[h]:2200")
    }

    func testHashedEntriesMadeBySSHKeygenMatch() throws {
        let dir = NSTemporaryDirectory() + "kh-" + UUID().uuidString.prefix(6)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let path = dir + "/known_hosts"
        try "db.example.org \(line!)\n[10.1.2.3]:2222 \(line!)\n".write(toFile: path, atomically: true, encoding: .utf8)
        try Shell.run(TestTool.sshKeygen.path, ["-H", "-f", path])
        let file = try KnownHostsFile.load(path)
        XCTAssertTrue(file.entries.allSatisfy { $0.hosts.hasPrefix("|1|") }, file.text)
        XCTAssertEqual(file.entries(for: "db.example.org").map(\.key), [key])
        XCTAssertEqual(file.entries(for: "[10.1.2.3]:2222").map(\.key), [key])
        XCTAssertTrue(file.entries(for: "other.example.org").isEmpty)
    }

    func testUnparsableLinesSurviveARewrite() throws {
        let original = """
            # a comment
            garbage line that is not a key
            @cert-authority *.example \(line!)
            @future-marker host \(line!)
            host1\t\(line!)   trailing comment

            """
        var file = KnownHostsFile(text: original)
        XCTAssertEqual(file.text, original, "reading and writing back changes nothing")
        file.append(other, for: "[127.0.0.1]:2022")
        XCTAssertEqual(file.text, original + "[127.0.0.1]:2022 \(other.type) \(other.base64)\n")

        let dir = NSTemporaryDirectory() + "kh-" + UUID().uuidString.prefix(6)
        let path = dir + "/sub/known_hosts"
        let previous = umask(0)
        defer { umask(previous) }
        try file.write(to: path)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), file.text)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        let dirAttributes = try FileManager.default.attributesOfItem(atPath: dir + "/sub")
        XCTAssertEqual((dirAttributes[.posixPermissions] as? NSNumber)?.intValue, 0o700)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir + "/sub").filter { $0.contains(".tmp") }
        XCTAssertEqual(leftovers, [])
    }

    func testVerdictsAcrossSources() throws {
        let dir = NSTemporaryDirectory() + "kh-" + UUID().uuidString.prefix(6)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let own = dir + "/own", user = dir + "/user"
        let trust = HostKeyTrustStore(ownKnownHostsPath: own, userKnownHostsPath: user)
        XCTAssertEqual(trust.evaluate(key, host: "h", port: 22, pinned: nil), .unknown)
        try "h \(line!)\n".write(toFile: user, atomically: true, encoding: .utf8)
        XCTAssertEqual(trust.evaluate(key, host: "h", port: 22, pinned: nil), .trusted(.userKnownHosts))
        XCTAssertEqual(
            trust.evaluate(other, host: "h", port: 22, pinned: nil),
            .otherType(knownTypes: ["ssh-ed25519"], source: .userKnownHosts))
        // A pin wins over known_hosts; a different key of the pinned type is a change.
        XCTAssertEqual(trust.evaluate(other, host: "h", port: 22, pinned: other.pinned), .trusted(.pinned))
        let third = try TestKey.generate(.ed25519).publicLine.split(separator: " ").map(String.init)
        let changed = try XCTUnwrap(HostKey(type: third[0], base64: third[1]))
        XCTAssertEqual(
            trust.evaluate(changed, host: "h", port: 22, pinned: nil),
            .changed(known: [key], source: .userKnownHosts))
        XCTAssertEqual(
            trust.evaluate(changed, host: "h", port: 22, pinned: key.pinned), .changed(known: [key], source: .pinned))
        // @revoked anywhere refuses the key, even when another line trusts it.
        try "h \(line!)\n@revoked * \(line!)\n".write(toFile: user, atomically: true, encoding: .utf8)
        XCTAssertEqual(trust.evaluate(key, host: "h", port: 22, pinned: nil), .revoked(.userKnownHosts))
        // Remembering writes sshelf's own file only; ~/.ssh/known_hosts is never written.
        let before = try String(contentsOfFile: user, encoding: .utf8)
        try trust.remember(other, host: "h", port: 2222, replacing: false)
        XCTAssertEqual(try String(contentsOfFile: user, encoding: .utf8), before)
        XCTAssertEqual(try KnownHostsFile.load(own).entries(for: "[h]:2222").map(\.key), [other])
        XCTAssertEqual(trust.knownTypes(host: "h", port: 2222, pinned: nil), [other.type])
    }

    /// A fleet run accepting many new hosts at once remembers them from many threads: no line may be lost.
    func testConcurrentRemembersKeepEveryHost() throws {
        let dir = NSTemporaryDirectory() + "kh-" + UUID().uuidString.prefix(6)
        let own = dir + "/own"
        let trust = HostKeyTrustStore(ownKnownHostsPath: own, userKnownHostsPath: nil)
        let hosts = (0..<48).map { "host\($0)" }, key = try XCTUnwrap(key)
        DispatchQueue.concurrentPerform(iterations: hosts.count) { index in
            do { try trust.remember(key, host: hosts[index], port: 22, replacing: false) } catch { XCTFail("\(error)") }
        }
        let file = try KnownHostsFile.load(own)
        XCTAssertEqual(Set(hosts.filter { !file.entries(for: $0).isEmpty }), Set(hosts))
        XCTAssertEqual(file.entries.count, hosts.count)
        var info = stat()
        XCTAssertEqual(stat(own + ".lock", &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o600)
    }

    func testUntrustedTextLosesControlCharacters() {
        XCTAssertEqual(UntrustedText.clean("Code\u{1B}[2J\u{1B}]0;owned\u{07}: \u{08}\u{9B}x\r"), "Code: x")
        XCTAssertEqual(UntrustedText.clean("line1\nline2\tz"), "line1\nline2\tz")
    }
}
