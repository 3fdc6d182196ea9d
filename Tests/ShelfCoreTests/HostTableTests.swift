// HostTable: every field survives the column store (a host out equals the host in), the catalog bytes
// reload as the same table, damaged bytes are refused without reading out of bounds, and the structure
// holds no Swift object or collection per host (what keeps 100,000 hosts in about 10 MB).
import Foundation
import ShelfCore
import XCTest

final class HostTableTests: XCTestCase {
    static func sample() -> [ShelfCore.Host] {
        let created = Date(timeIntervalSince1970: 1_700_000_000.25)
        let bastion = ShelfCore.Host(
            name: "bastion", hostname: "bastion.example.com", user: "jump", createdAt: created,
            updatedAt: created)
        return [
            bastion,
            ShelfCore.Host(
                name: "Web-EU-1", hostname: "10.1.0.11", port: 2222, user: "deploy", groupID: UUID(),
                tags: ["web", "nginx"], authMethod: .publickey, identityID: UUID(),
                jumpHostIDs: [bastion.id, UUID()],
                pinnedHostKey: PinnedHostKey(type: "ssh-ed25519", key: "AAAAC3NzaC1lZDI1NTE5AAAAIOMq"),
                options: ["ServerAliveInterval 15", "ProxyCommand nc \"%h\" %p"],
                notes: "line one\nline two", createdAt: created, updatedAt: created.addingTimeInterval(60),
                lastConnectedAt: created.addingTimeInterval(3600), extra: ["future": .string("kept")]),
            ShelfCore.Host(
                name: "Zürich-lab", hostname: "2001:db8::7", port: 2200, user: "root", tags: ["lab", "ü"],
                authMethod: .other("fido2"), passwordRef: ReferenceKey.hostPassword(UUID()),
                unresolvedJump: "gone-host", createdAt: created, updatedAt: created),
            // Control characters (a record synced from a broken device) are shown as '?' but kept exactly.
            ShelfCore.Host(
                name: "evil\u{1B}[2J", hostname: "h\u{1F}x", user: "u\u{7}", tags: ["t\u{1}"],
                createdAt: created, updatedAt: created),
            ShelfCore.Host(name: "empty", hostname: "", createdAt: created, updatedAt: created),
        ]
    }

    static func table(_ hosts: [ShelfCore.Host]) -> HostTable {
        var builder = HostTableBuilder(expectedCount: hosts.count)
        for host in hosts { builder.append(host) }
        return builder.finish(token: Array(0..<16))
    }

    func testEveryFieldRoundTrips() throws {
        let hosts = Self.sample()
        let table = Self.table(hosts)
        XCTAssertEqual(table.count, hosts.count)
        XCTAssertEqual(table.token, Array(0..<16))
        for (row, host) in hosts.enumerated() {
            XCTAssertEqual(table.host(at: row), host, "row \(row)")
            XCTAssertEqual(table.index(of: host.id), row)
        }
        XCTAssertNil(table.index(of: UUID()))
        XCTAssertEqual(table.fields(3), ["evil?[2J", "h?x", "u?", "t?"], "shown with '?' for control characters")
        XCTAssertEqual(table.fields(2), ["Zürich-lab", "2001:db8::7", "root", "lab", "ü"])
        XCTAssertTrue(table.jumps(1, through: hosts[0].id))
        XCTAssertFalse(table.jumps(0, through: hosts[1].id))
        let reloaded = try HostTable(bytes: table.bytes)
        XCTAssertEqual((0..<reloaded.count).map(reloaded.host(at:)), hosts)
    }

    /// Ids are found through a fence of every 256th sorted id, then one block: every id of several blocks is found at
    /// its row, and ids below, between and above them are not.
    func testIdsAreFoundThroughTheFenceAndOneBlock() throws {
        let hosts = (0..<(3 * 256 + 17)).map { ShelfCore.Host(name: "h\($0)", hostname: "x\($0)") }
        let table = Self.table(hosts)
        for (row, host) in hosts.enumerated() { XCTAssertEqual(table.index(of: host.id), row) }
        XCTAssertNil(table.index(of: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))))
        XCTAssertNil(
            table.index(
                of: UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255))))
        for _ in 0..<200 { XCTAssertNil(table.index(of: UUID())) }
        XCTAssertEqual(try HostTable(bytes: table.bytes).index(of: hosts[500].id), 500)
    }

    /// The catalog cache is written in pieces of at most 64 KiB (the page cache keeps a file in pieces as large as the
    /// writes that made them, and a mapping maps a whole piece per touch): through a socket that keeps each write a
    /// message of its own, every message is at most 64 KiB, and together they are the table's bytes.
    func testTheCacheIsWrittenInPiecesOf64KiBAtMost() throws {
        let table = Self.table((0..<3000).map { ShelfCore.Host(name: "host-\($0)", hostname: "h\($0).example.com") })
        XCTAssertGreaterThan(table.bytes.count, 4 * 64 * 1024)
        var pair: [Int32] = [0, 0]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &pair), 0)
        var size: Int32 = 1 << 20
        setsockopt(pair[0], SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        final class Received: @unchecked Sendable { var messages: [[UInt8]] = [] }
        let received = Received()
        let reader = pair[1]
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            var buffer = [UInt8](repeating: 0, count: 4 << 20)
            while true {
                let n = recv(reader, &buffer, buffer.count, 0)
                if n <= 0 { break }
                received.messages.append(Array(buffer[..<n]))
            }
            done.signal()
        }
        var builder = HostTableBuilder(expectedCount: 3000)
        for i in 0..<3000 { builder.append(ShelfCore.Host(name: "host-\(i)", hostname: "h\(i).example.com")) }
        try builder.write(token: Array(0..<16), to: pair[0])
        close(pair[0])
        done.wait()
        close(pair[1])
        XCTAssertTrue(
            received.messages.allSatisfy { $0.count <= 64 * 1024 }, "\(received.messages.map(\.count).max() ?? 0)")
        XCTAssertGreaterThan(received.messages.count, 4)
        let written = try HostTable(bytes: received.messages.flatMap { $0 })
        XCTAssertEqual(written.count, 3000)
        XCTAssertEqual(written.name(2999), "host-2999")
    }

    func testDamagedBytesAreRefusedNotRead() throws {
        let good = Self.table(Self.sample() + (0..<50).map { ShelfCore.Host(name: "h\($0)", hostname: "x\($0)") }).bytes
        XCTAssertThrowsError(try HostTable(bytes: Array(good.prefix(good.count / 2))), "truncated")
        XCTAssertThrowsError(try HostTable(bytes: Array("not a catalog at all, just text".utf8)))
        XCTAssertThrowsError(try HostTable(bytes: []))
        var generator = SystemRandomNumberGenerator()
        var refused = 0
        for _ in 0..<3000 {
            var bytes = good
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            guard let table = try? HostTable(bytes: bytes) else {
                refused += 1
                continue
            }
            // Whatever loads must be safe to use everywhere: every accessor, the matcher, highlights.
            let matcher = HostMatcher(table: table, groupPaths: table.groupIDs.map { _ in "g/p" })
            for row in 0..<table.count {
                _ = table.host(at: row)
                _ = table.index(of: table.id(row))
                _ = matcher.highlights(row, HostQuery("h x"))
            }
            _ = matcher.search(HostQuery("e v"), in: (0..<Int32(table.count)).map { $0 })
        }
        XCTAssertGreaterThan(refused, 0)
    }

    /// Counts every element of every collection reachable from a value (not through raw pointers).
    static func reachableElements(_ value: Any, depth: Int = 0) -> Int {
        guard depth < 12 else { return 0 }
        let mirror = Mirror(reflecting: value)
        var total =
            mirror.displayStyle == .collection || mirror.displayStyle == .dictionary
                || mirror.displayStyle == .set ? mirror.children.count : 0
        for child in mirror.children { total += reachableElements(child.value, depth: depth + 1) }
        return total
    }

    func testTheTableHoldsNoObjectOrCollectionPerHost() {
        func table(_ count: Int) -> HostTable {
            Self.table(
                (0..<count).map {
                    ShelfCore.Host(
                        name: String(format: "db-fra-prod-%06d", $0), hostname: "db-\($0).fra.prod.example.com",
                        user: "deploy", tags: ["db"], jumpHostIDs: [UUID()])
                })
        }
        let small = table(10), large = table(20_000)
        // Collections reachable from the value (group and identity lists) do not grow with the host count:
        // the hosts live in one byte buffer.
        XCTAssertEqual(Self.reachableElements(small), Self.reachableElements(large))
        XCTAssertLessThan(large.bytes.count / large.count, 180, "bytes per realistic host")
    }
}
