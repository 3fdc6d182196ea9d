// ReleaseLogHead: `release.log.head`, the release log's anchor against cutting — the number of the last line, its
// MAC and the number of the first line still kept (after rotations dropped old archives), MAC'd with the log key so
// nobody without the vault can rewrite it. Until a rotation drops a file the first line is 1 and the record keeps
// its original three-word form, so logs written before rotation existed read and verify unchanged.
import FoundationEssentials
import ShelfCore
import ShelfSystem

extension ReleaseLog {
    static let headLabel = Array("sshelf-release-log-head".utf8)
    static let keptHeadLabel = Array("sshelf-release-log-head-kept".utf8)

    struct Head {
        /// The number of the last line written.
        var count: Int
        /// Its MAC.
        var last: [UInt8]
        /// The number of the oldest line the log still keeps: 1, or the first line of the oldest archive.
        var first: Int
        var mac: [UInt8]

        init(count: Int, last: [UInt8], first: Int = 1, key: SecretBytes) {
            self.count = count
            self.last = last
            self.first = max(1, first)
            mac = Head.compute(count: count, last: last, first: self.first, key: key)
        }

        private init(count: Int, last: [UInt8], first: Int, mac: [UInt8]) {
            self.count = count
            self.last = last
            self.first = first
            self.mac = mac
        }

        static func compute(count: Int, last: [UInt8], first: Int, key: SecretBytes) -> [UInt8] {
            if first == 1 {
                return LogMAC.mac(key: key, [ReleaseLog.headLabel, number(count), last])
            }
            return LogMAC.mac(key: key, [ReleaseLog.keptHeadLabel, number(count), last, number(first)])
        }

        private static func number(_ value: Int) -> [UInt8] {
            SSHWire.uint32(UInt32(truncatingIfNeeded: value >> 32)) + SSHWire.uint32(UInt32(truncatingIfNeeded: value))
        }

        func isValid(key: SecretBytes) -> Bool {
            LogMAC.equal(Head.compute(count: count, last: last, first: first, key: key), mac)
        }

        /// `count last-MAC head-MAC`, and ` first` after it once old lines were rotated away.
        var text: String {
            "\(count) \(ReleaseLog.hex(last)) \(ReleaseLog.hex(mac))" + (first == 1 ? "" : " \(first)") + "\n"
        }

        static func load(_ path: String) -> Head? {
            // Read like the log itself: a regular file, no link followed, so a FIFO in its place is not a wait.
            guard let data = try? RegularFile.read(path, limit: 1023, followLinks: false) else { return nil }
            let parts = String(decoding: data, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" })
            guard parts.count == 3 || parts.count == 4, let count = Int(parts[0]), count >= 0,
                let last = ReleaseLog.unhex(Array(parts[1].utf8)), let mac = ReleaseLog.unhex(Array(parts[2].utf8))
            else { return nil }
            var first = 1
            if parts.count == 4 {
                guard let kept = Int(parts[3]), kept > 1 else { return nil }
                first = kept
            }
            return Head(count: count, last: last, first: first, mac: mac)
        }
    }
}
