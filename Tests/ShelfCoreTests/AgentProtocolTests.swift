// AgentProtocolTests: the agent's wire parsing in memory — framing through a reader that drips one byte (or any
// chunk size) at a time, the named size limit, every request type, and malformed input (truncated fields, lengths
// past the end, trailing bytes, unknown and repeated constraints, non-canonical numbers) refused, never crashing.
import Foundation
import ShelfCore
import XCTest

final class AgentProtocolTests: XCTestCase {
    /// Feeds `input` to the framer in chunks of the given sizes (cycled); returns each outcome and body.
    func frames(_ input: [UInt8], chunks: [Int]) -> [(AgentFraming.Outcome, [UInt8])] {
        var position = 0
        var chunkIndex = 0
        var results: [(AgentFraming.Outcome, [UInt8])] = []
        while true {
            var buffer: UnsafeMutableRawBufferPointer? = nil
            let outcome = AgentFraming.next(
                read: { target in
                    guard position < input.count else { return 0 }
                    let size = min(chunks[chunkIndex % chunks.count], target.count, input.count - position)
                    chunkIndex += 1
                    for offset in 0..<size { target[offset] = input[position + offset] }
                    position += size
                    return size
                },
                storage: { length in
                    let made = UnsafeMutableRawBufferPointer.allocate(byteCount: length, alignment: 1)
                    buffer = made
                    return made
                })
            var body: [UInt8] = []
            if let buffer {
                body = Array(buffer)
                buffer.deallocate()
            }
            results.append((outcome, body))
            guard case .message = outcome else { return results }
        }
    }

    func testFramingSurvivesAnyChunkSize() {
        let first: [UInt8] = [AgentMessage.requestIdentities]
        let second: [UInt8] = [AgentMessage.removeAllIdentities]
        let stream = AgentProtocol.frame(first) + AgentProtocol.frame(second)
        for chunks in [[1], [2], [3], [5], [1, 4, 2], [1000]] {
            let got = frames(stream, chunks: chunks)
            XCTAssertEqual(got.map(\.0), [.message(length: 1), .message(length: 1), .closed], "chunks \(chunks)")
            XCTAssertEqual(got.map(\.1).prefix(2).map { $0 }, [first, second], "chunks \(chunks)")
        }
    }

    func testCutsAndOverlongMessagesCloseTheConnection() {
        let whole = AgentProtocol.frame([AgentMessage.requestIdentities, 0, 0])
        for cut in 1..<whole.count {
            XCTAssertEqual(frames(Array(whole.prefix(cut)), chunks: [1]).last?.0, .truncated, "cut at \(cut)")
        }
        let limit = UInt32(AgentLimits.message)
        XCTAssertEqual(frames(SSHWire.uint32(limit + 1) + [11], chunks: [1]).last?.0, .refused(length: limit + 1))
        XCTAssertEqual(frames(SSHWire.uint32(0), chunks: [1]).last?.0, .refused(length: 0))
        XCTAssertEqual(frames(SSHWire.uint32(UInt32.max), chunks: [4]).last?.0, .refused(length: UInt32.max))
        XCTAssertEqual(frames([], chunks: [1]).last?.0, .closed)
    }

    func decode(_ bytes: [UInt8]) -> Result<AgentRequest, AgentParseError> {
        bytes.withUnsafeBytes { AgentProtocol.decode($0) }
    }

    func testEveryRequestDecodes() {
        XCTAssertEqual(try decode([11]).get(), .requestIdentities)
        let blob = SSHWire.string("ssh-ed25519") + SSHWire.string([UInt8](repeating: 7, count: 32))
        let sign = [AgentMessage.signRequest] + SSHWire.string(blob) + SSHWire.string([1, 2, 3]) + SSHWire.uint32(4)
        XCTAssertEqual(try decode(sign).get(), .sign(keyBlob: blob, data: [1, 2, 3], flags: 4))
        XCTAssertEqual(try decode([18] + SSHWire.string(blob)).get(), .remove(keyBlob: blob))
        XCTAssertEqual(try decode([19]).get(), .removeAll)
        XCTAssertEqual(try decode([22] + SSHWire.string("pw")).get(), .lock(passphrase: 5..<7))
        XCTAssertEqual(try decode([23] + SSHWire.string("pw")).get(), .unlock(passphrase: 5..<7))
        let name = SSHWire.string("session-bind@openssh.com")
        XCTAssertEqual(
            try decode([27] + name + [1, 2, 3]).get(),
            .extension(name: "session-bind@openssh.com", contents: (1 + name.count)..<(4 + name.count)))
        XCTAssertEqual(try decode([20]).get(), .smartcard)
        XCTAssertEqual(try decode([99, 1, 2]).get(), .unknown(99))
    }

    func add(
        _ type: String = "ssh-ed25519", fields: [[UInt8]]? = nil, comment: String = "me@laptop",
        constraints: [UInt8] = [], message: UInt8 = AgentMessage.addIdentityConstrained
    ) -> [UInt8] {
        let body = (fields ?? [[UInt8](repeating: 1, count: 32), [UInt8](repeating: 2, count: 64)]).flatMap {
            SSHWire.string($0)
        }
        return [message] + SSHWire.string(type) + body + SSHWire.string(comment) + constraints
    }

    func testAddKeepsThePrivateFieldsInPlaceAndReadsConstraints() throws {
        let message = add(constraints: [1] + SSHWire.uint32(600) + [2])
        guard case .add(let request) = try decode(message).get() else { return XCTFail("not an add") }
        XCTAssertEqual(request.keyType, "ssh-ed25519")
        XCTAssertEqual(request.comment, "me@laptop")
        XCTAssertEqual(request.lifetime, 600)
        XCTAssertTrue(request.confirm)
        // The fields are located, not copied: the range covers exactly the two strings after the type.
        let start = 1 + 4 + "ssh-ed25519".utf8.count
        XCTAssertEqual(request.fields, start..<(start + 4 + 32 + 4 + 64))

        guard case .add(let plain) = try decode(add(message: AgentMessage.addIdentity)).get() else { return XCTFail() }
        XCTAssertNil(plain.lifetime)
        XCTAssertFalse(plain.confirm)
    }

    func testMalformedRequestsAreRefused() {
        let cases: [(String, [UInt8], AgentParseError)] = [
            ("empty", [], .empty),
            ("sign without flags", [13] + SSHWire.string([1]) + SSHWire.string([2]), .malformed("flags")),
            ("blob length past the end", [13] + SSHWire.uint32(1000) + [1, 2], .malformed("key blob")),
            (
                "blob over its limit", [18] + SSHWire.string([UInt8](repeating: 0, count: AgentLimits.keyBlob + 1)),
                .malformed("key blob")
            ),
            ("trailing bytes", [11, 0], .trailingBytes(1)),
            ("DSA key", add("ssh-dss"), .unsupportedKeyType("ssh-dss")),
            (
                "certificate", add("ssh-ed25519-cert-v01@openssh.com"),
                .unsupportedKeyType("ssh-ed25519-cert-v01@openssh.com")
            ),
            ("missing comment", Array(add().dropLast(13)), .malformed("comment")),
            ("unknown constraint", add(constraints: [9]), .unknownConstraint(9)),
            (
                "constraint extension",
                add(constraints: [255] + SSHWire.string("restrict-destination-v00@openssh.com")),
                .constraintExtension("restrict-destination-v00@openssh.com")
            ),
            ("lifetime twice", add(constraints: [1, 0, 0, 0, 1, 1, 0, 0, 0, 1]), .repeatedConstraint("lifetime")),
            ("confirm twice", add(constraints: [2, 2]), .repeatedConstraint("confirm")),
            ("lifetime cut short", add(constraints: [1, 0, 0]), .malformed("lifetime")),
            (
                "comment not UTF-8",
                [17] + SSHWire.string("ssh-ed25519") + SSHWire.string([1]) + SSHWire.string([2])
                    + SSHWire.string([0xff, 0xfe]), .malformed("comment")
            ),
            ("key type not UTF-8", [17] + SSHWire.string([0xc3]), .malformed("key type")),
        ]
        for (name, bytes, expected) in cases {
            switch decode(bytes) {
            case .success(let request): XCTFail("\(name): accepted as \(request)")
            case .failure(let error): XCTAssertEqual(error, expected, name)
            }
        }
    }

    func testEveryTruncationOfEveryRequestIsHandled() {
        let blob = SSHWire.string("ssh-ed25519") + SSHWire.string([UInt8](repeating: 7, count: 32))
        let messages = [
            [AgentMessage.signRequest] + SSHWire.string(blob) + SSHWire.string([1, 2, 3]) + SSHWire.uint32(2),
            add(constraints: [1] + SSHWire.uint32(5) + [2]),
            [18] + SSHWire.string(blob),
            [22] + SSHWire.string("secret"),
        ]
        for message in messages {
            for cut in 1..<message.count {
                if case .success(let request) = decode(Array(message.prefix(cut))) {
                    // Only a cut that ends exactly between constraints is a complete message.
                    guard case .add = request else {
                        return XCTFail("cut at \(cut) of \(message.first!) decoded as \(request)")
                    }
                }
            }
        }
    }

    func testWireNumbersMustBeCanonical() {
        func mpint(_ bytes: [UInt8]) -> [UInt8]? {
            let encoded = SSHWire.uint32(UInt32(bytes.count)) + bytes
            return encoded.withUnsafeBytes { raw in
                var reader = SSHWireReader(raw)
                return reader.positiveMPInt(limit: 16).map(Array.init)
            }
        }
        XCTAssertEqual(mpint([0x01, 0x02]), [0x01, 0x02])
        XCTAssertEqual(mpint([0x00, 0x80]), [0x80], "a zero byte that clears the sign bit is dropped")
        XCTAssertEqual(mpint([]), [])
        XCTAssertNil(mpint([0x80]), "negative")
        XCTAssertNil(mpint([0x00, 0x01]), "a needless leading zero")
        XCTAssertNil(mpint([0x00]), "zero written with a byte")
        XCTAssertEqual(SSHWire.mpint([0x80]), [0, 0, 0, 2, 0, 0x80])
        XCTAssertEqual(SSHWire.mpint([0, 0, 5]), [0, 0, 0, 1, 5])
        XCTAssertEqual(SSHWire.mpint([]), [0, 0, 0, 0])
    }

    func testRepliesAreFramedAsOpenSSHExpects() {
        XCTAssertEqual(AgentProtocol.frame(AgentProtocol.status(true)), [0, 0, 0, 1, 6])
        XCTAssertEqual(AgentProtocol.frame(AgentProtocol.status(false)), [0, 0, 0, 1, 5])
        let answer = AgentProtocol.identitiesAnswer([(blob: [1, 2], comment: "c")])
        XCTAssertEqual(answer, [12, 0, 0, 0, 1, 0, 0, 0, 2, 1, 2, 0, 0, 0, 1, 0x63])
        XCTAssertEqual(AgentProtocol.signResponse([9]), [14, 0, 0, 0, 1, 9])
    }

    func testSessionBindDecodesAndTellsItsOwnRequests() {
        let key = SSHWire.string("ssh-ed25519") + SSHWire.string([UInt8](repeating: 3, count: 32))
        let sid = [UInt8](repeating: 9, count: 32)
        let contents = SSHWire.string(key) + SSHWire.string(sid) + SSHWire.string([5, 5]) + [0]
        let bind = contents.withUnsafeBytes { AgentSessionBind.decode($0) }
        XCTAssertEqual(bind, AgentSessionBind(hostKey: key, sessionID: sid, signature: [5, 5], forwarding: false))
        XCTAssertTrue(bind?.covers(SSHWire.string(sid) + [50, 1, 2]) == true)
        XCTAssertFalse(bind?.covers(SSHWire.string([UInt8](repeating: 8, count: 32)) + [50]) == true)
        for cut in 0..<contents.count {
            XCTAssertNil(Array(contents.prefix(cut)).withUnsafeBytes { AgentSessionBind.decode($0) }, "cut at \(cut)")
        }
        XCTAssertNil((contents + [0]).withUnsafeBytes { AgentSessionBind.decode($0) }, "trailing bytes")
        let longID = SSHWire.string(key) + SSHWire.string([UInt8](repeating: 1, count: 129)) + SSHWire.string([5]) + [0]
        XCTAssertNil(longID.withUnsafeBytes { AgentSessionBind.decode($0) }, "a session id over OpenSSH's limit")
    }
}
