// The binary formats sync reads from an untrusted remote, with their expected failures: every prefix of a valid
// entry, certificate, invite box and claim is refused without a crash; trailing bytes, unknown kinds and counts
// larger than the data are refused; one flipped bit anywhere breaks the signature or the seal; a claim does not open
// for another device or another code.
import Foundation
import ShelfCore
@testable import ShelfSync
import ShelfVault
import XCTest

final class FormatTests: XCTestCase {
    let group = UUID(), me = UUID()

    func keys() throws -> SyncCrypto.DeviceKeys { try XCTUnwrap(SyncCrypto.DeviceKeys(seed: SyncCrypto.randomKey())) }

    func certificates(_ keys: SyncCrypto.DeviceKeys) -> [Certificate] {
        [
            Certificate(
                group: group, signer: me, time: 1, body: .genesis(name: "laptop", signingKey: keys.signingPublicKey),
                keys: keys),
            Certificate(
                group: group, signer: me, time: 2,
                body: .add(
                    device: UUID(), name: "phone ☎", signingKey: keys.signingPublicKey,
                    invite: UUID(), epochs: [UUID(), UUID()]), keys: keys),
            Certificate(
                group: group, signer: me, time: 3,
                body: .revoke(
                    device: UUID(), upTo: 7, upToDigest: Array(repeating: 9, count: 32),
                    kept: [Array(repeating: 1, count: 32)]), keys: keys),
            Certificate(group: group, signer: me, time: 4, body: .epoch(id: UUID(), number: 3), keys: keys),
            Certificate(
                group: group, signer: me, time: 5,
                body: .share(
                    epoch: UUID(), recipient: UUID(),
                    sealedKey: SyncCrypto.sealedBox(SyncCrypto.randomKey(), to: keys.boxPublicKey) ?? []),
                keys: keys),
        ]
    }

    func testCertificatesRoundTripAndEveryPrefixIsRefused() throws {
        let keys = try keys()
        for certificate in certificates(keys) {
            let parsed = try Certificate(parsing: certificate.bytes)
            XCTAssertEqual(parsed, certificate)
            XCTAssertTrue(parsed.isSigned(by: keys.signingPublicKey))
            XCTAssertFalse(parsed.isSigned(by: try self.keys().signingPublicKey), "another key did not sign it")
            for length in 0..<certificate.bytes.count {
                XCTAssertThrowsError(
                    try Certificate(parsing: Array(certificate.bytes.prefix(length))), "prefix \(length)")
            }
            XCTAssertThrowsError(try Certificate(parsing: certificate.bytes + [0]), "trailing byte")
            for index in stride(from: 0, to: certificate.bytes.count, by: 7) {
                var flipped = certificate.bytes
                flipped[index] ^= 0x01
                if let changed = try? Certificate(parsing: flipped) {
                    XCTAssertFalse(changed.isSigned(by: keys.signingPublicKey), "bit at \(index)")
                }
            }
        }
        var unknown = certificates(keys)[3].bytes
        unknown[8] = 99
        XCTAssertThrowsError(try Certificate(parsing: unknown)) {
            XCTAssertTrue("\($0)".contains("unknown kind"), "\($0)")
        }
        // An addition claiming 65,535 epochs in a few bytes is refused before anything is allocated.
        var claims = certificates(keys)[1].bytes
        let countOffset = 8 + 1 + 16 + 16 + 8 + 16 + 2 + "phone ☎".utf8.count + 32 + 16
        claims[countOffset] = 0xff
        claims[countOffset + 1] = 0xff
        XCTAssertThrowsError(try Certificate(parsing: claims)) {
            XCTAssertTrue("\($0)".contains("more than it can hold"), "\($0)")
        }
    }

    func testEntriesRoundTripAndRefuseDamage() throws {
        let keys = try keys()
        let rosterKey = SyncCrypto.randomKey(), contentKey = SyncCrypto.randomKey()
        let host = ShelfCore.Host(name: "web", hostname: "w.example")
        let record = try Forger.record(host, by: me.uuidString.lowercased(), wall: 5)
        let header = EntryHeader(
            group: group, device: me, seq: 3, previous: Array(repeating: 4, count: 32), epoch: UUID(), snapshot: true)
        let entry = Entry(
            header: header, roster: RosterSection.encode(certificates(keys)), rosterKey: rosterKey,
            content: try EntryContent(records: [record], credentials: SecretBytes([1, 2, 3])).encode(),
            contentKey: contentKey,
            keys: keys)
        let parsed = try Entry(parsing: entry.bytes, limit: RemoteLayout.maxEntryBytes)
        XCTAssertEqual(parsed.header, header)
        XCTAssertTrue(parsed.isSigned(by: keys.signingPublicKey))
        let roster = try RosterSection.decode(try XCTUnwrap(parsed.openRoster(rosterKey)))
        XCTAssertEqual(roster.count, 5)
        let content = try EntryContent.decode(try XCTUnwrap(parsed.openContent(contentKey)), limit: 1 << 20)
        XCTAssertEqual(content.records, [record])
        XCTAssertTrue(try XCTUnwrap(content.credentials).isEqual(to: SecretBytes([1, 2, 3])))
        XCTAssertNil(parsed.openContent(rosterKey), "each section opens only with its own key")
        XCTAssertNil(parsed.openRoster(contentKey))

        for length in stride(from: 0, to: entry.bytes.count, by: 3) {
            XCTAssertThrowsError(
                try Entry(parsing: Array(entry.bytes.prefix(length)), limit: RemoteLayout.maxEntryBytes),
                "prefix \(length)")
        }
        XCTAssertThrowsError(try Entry(parsing: entry.bytes + [0], limit: RemoteLayout.maxEntryBytes))
        XCTAssertThrowsError(try Entry(parsing: entry.bytes, limit: 16), "a section larger than the limit")
        // One flipped bit anywhere: the signature fails; in the header or a section, the seal fails too.
        for index in stride(from: 0, to: entry.bytes.count, by: 11) {
            var flipped = entry.bytes
            flipped[index] ^= 0x80
            guard let changed = try? Entry(parsing: flipped, limit: RemoteLayout.maxEntryBytes) else { continue }
            XCTAssertFalse(changed.isSigned(by: keys.signingPublicKey), "bit at \(index)")
            if index < EntryHeader.size {
                XCTAssertNil(changed.openContent(contentKey), "the header is bound to the content (bit at \(index))")
            }
        }
    }

    func testContentSectionsRefuseDamage() throws {
        let plain = try EntryContent(records: [], credentials: SecretBytes([7])).encode()
        let bytes = plain.withUnsafeBytes { Array($0) }
        for length in 0..<bytes.count {
            XCTAssertThrowsError(
                try EntryContent.decode(SecretBytes(Array(bytes.prefix(length))), limit: 1 << 20), "prefix \(length)")
        }
        XCTAssertThrowsError(try EntryContent.decode(SecretBytes(bytes + [0]), limit: 1 << 20))
        let badRecords = SecretBytes(EntryContent.magic + [0, 0, 0, 2] + Array("[{".utf8) + [0])
        XCTAssertThrowsError(try EntryContent.decode(badRecords, limit: 1 << 20)) {
            XCTAssertTrue("\($0)".contains("do not parse"), "\($0)")
        }
        XCTAssertThrowsError(try RosterSection.decode(SecretBytes(RosterSection.magic + [0xff, 0xff, 0xff, 0xff])))
    }

    func testInviteBoxAndClaimOpenOnlyWithTheirCodeAndDevice() throws {
        let keys = try keys()
        let code = InviteCode.generate()
        let box = InviteBox(
            group: group, anchor: Array(repeating: 2, count: 32), inviter: me, inviterName: "laptop", created: Date(),
            expires: Date().addingTimeInterval(3600), credentials: true)
        let sealed = box.seal(code)
        let opened = try XCTUnwrap(try InviteBox.open(sealed, code: code))
        XCTAssertEqual(opened.group, group)
        XCTAssertEqual(opened.inviterName, "laptop")
        XCTAssertTrue(opened.credentials)
        XCTAssertNil(try InviteBox.open(sealed, code: InviteCode.generate()), "another code opens nothing")
        var flipped = sealed
        flipped[flipped.count / 2] ^= 1
        XCTAssertNil(try InviteBox.open(flipped, code: code))
        for length in 0..<sealed.count { XCTAssertNil(try? InviteBox.open(Array(sealed.prefix(length)), code: code)) }

        let device = UUID()
        let claim = InviteClaim(device: device, name: "desktop", signingKey: keys.signingPublicKey, time: 1).seal(
            code, keys: keys)
        XCTAssertEqual(InviteClaim.open(claim, code: code, device: device)?.name, "desktop")
        XCTAssertNil(
            InviteClaim.open(claim, code: code, device: UUID()), "a claim moved to another device's name does not open")
        XCTAssertNil(InviteClaim.open(claim, code: InviteCode.generate(), device: device))
        // Signed by another key than the one it asks to be enrolled with: refused.
        let liar = InviteClaim(device: device, name: "desktop", signingKey: try self.keys().signingPublicKey, time: 1)
            .seal(code, keys: keys)
        XCTAssertNil(InviteClaim.open(liar, code: code, device: device))
    }

    /// A welcome opens only with the key it was sealed to, for the invite and device it names; every prefix, a
    /// flipped bit and a trailing byte are refused.
    func testAWelcomeOpensOnlyForItsDeviceAndInvite() throws {
        let keys = try keys(), other = try self.keys()
        let invite = UUID(), device = UUID()
        let welcome = InviteWelcome(
            invite: invite, device: device, certificates: certificates(keys),
            heads: [InviteWelcome.InviteHead(device: me, seq: 4, digest: Array(repeating: 3, count: 32))],
            groupSecret: SyncCrypto.randomKey(), epochs: [(UUID(), SyncCrypto.randomKey())])
        let sealed = try XCTUnwrap(welcome.seal(to: keys.boxPublicKey))
        let opened = try XCTUnwrap(try InviteWelcome.open(sealed, keys: keys, invite: invite, device: device))
        XCTAssertTrue(opened.groupSecret.isEqual(to: welcome.groupSecret))
        XCTAssertTrue(opened.epochs[0].key.isEqual(to: welcome.epochs[0].key))
        XCTAssertEqual(opened.heads, welcome.heads)
        XCTAssertEqual(opened.certificates.count, 5)
        XCTAssertNil(
            try InviteWelcome.open(sealed, keys: other, invite: invite, device: device),
            "another device's key opens nothing")
        XCTAssertThrowsError(
            try InviteWelcome.open(sealed, keys: keys, invite: UUID(), device: device), "another invite")
        XCTAssertThrowsError(
            try InviteWelcome.open(sealed, keys: keys, invite: invite, device: UUID()), "another device's name")
        var flipped = sealed
        flipped[flipped.count / 2] ^= 1
        XCTAssertNil(try InviteWelcome.open(flipped, keys: keys, invite: invite, device: device))
        for length in stride(from: 0, to: sealed.count, by: 7) {
            XCTAssertNil(
                try? InviteWelcome.open(Array(sealed.prefix(length)), keys: keys, invite: invite, device: device))
        }
        XCTAssertNil(try? InviteWelcome.open(sealed + [0], keys: keys, invite: invite, device: device))
    }

    /// Record bodies go through sshelf's own JSON reader and writer: they agree with Foundation's, and refuse what is
    /// not JSON (every prefix of a document, bad escapes, control characters, a nesting bomb).
    func testRecordJSONAgreesWithFoundationAndRefusesDamage() throws {
        let text =
            #"{"a":true,"b":1,"c":1.5,"d":"x\n\"q\" \u00e9 \ud83d\ude00 ☎","#
            + #""e":null,"f":[1,false,-2.5e3],"g":{"h":0},"i":"/path"}"#
        let bytes = Array(text.utf8)
        let mine = try JSONValue.parse(bytes)
        let foundation = try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        XCTAssertEqual(mine, foundation)
        XCTAssertEqual(try JSONValue.parse(mine.jsonBytes), mine, "what it writes it reads back")
        XCTAssertEqual(
            try JSONDecoder().decode(JSONValue.self, from: Data(mine.jsonBytes)), mine, "and so does Foundation")
        let host = ShelfCore.Host(
            name: "web ☎", hostname: "w.example", port: 2222, tags: ["a", "b"], notes: "line\nnext")
        XCTAssertEqual(
            try SyncRecordCodec.plainBody(host),
            try JSONDecoder().decode([String: JSONValue].self, from: try ShelfJSON.encoder().encode(host)))
        for length in 0..<bytes.count {
            XCTAssertThrowsError(try JSONValue.parse(Array(bytes.prefix(length))), "prefix \(length)")
        }
        for bad in [
            #"{"a":1,}"#, #"[1 2]"#, #""\x""#, "\"a\u{1}b\"", #""\ud800""#, #"01"#, #"1."#, #"{"a"}"#,
            "[" + String(repeating: "[", count: 100) + "]]",
            #""\u12"#, "nul", "[1]x",
        ] {
            XCTAssertThrowsError(try JSONValue.parse(Array(bad.utf8)), bad)
        }
    }
}
