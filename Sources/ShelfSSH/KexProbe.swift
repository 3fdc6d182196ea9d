// KexProbe: the key exchanges a server offers, read from the first KEXINIT it sends (in the clear, before any key
// exchange) after a version line of our own. It tells a server that offers only post-quantum key exchanges — which
// libssh2 does not have — from a handshake that failed for another reason; nothing is sent but the version line.
import FoundationEssentials
import Glibc

public enum KexProbe {
    /// The server's KexAlgorithms, or nil when it could not be read (no SSH server, a timeout, a malformed packet).
    public static func offered(host: String, port: Int, timeout: Double) -> [String]? {
        guard let fd = try? TCPConnection.open(host: host, port: port, timeout: timeout) else { return nil }
        defer { close(fd) }
        var wait = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1_000_000))
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        let version = Array("SSH-2.0-sshelf_probe\r\n".utf8)
        guard version.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == version.count
        else { return nil }
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        // Up to 64 KiB: the server's lines before its version line, the version line and the KEXINIT packet.
        while buffer.count < 65_536 {
            if let names = parse(buffer) { return names.isEmpty ? nil : names }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            buffer += chunk[0..<count]
        }
        return nil
    }

    /// The kex name-list of the KEXINIT after the version line in `bytes`; nil while more bytes are needed, empty
    /// when what came is not that.
    static func parse(_ bytes: [UInt8]) -> [String]? {
        var at = 0
        // Lines until the one starting "SSH-".
        while true {
            guard let end = bytes[at...].firstIndex(of: 0x0A) else { return nil }
            let isVersion = bytes[at..<end].starts(with: Array("SSH-".utf8))
            at = end + 1
            if isVersion { break }
        }
        func uint32(_ index: Int) -> Int? {
            guard index + 4 <= bytes.count else { return nil }
            return bytes[index..<index + 4].reduce(0) { $0 << 8 | Int($1) }
        }
        guard let length = uint32(at) else { return nil }
        guard length <= 35_000, length > 22 else { return [] }
        guard bytes.count >= at + 4 + length else { return nil }
        // packet: length, padding length, payload (SSH_MSG_KEXINIT = 20, 16-byte cookie, kex name-list, …).
        let payload = at + 5
        guard bytes[payload] == 20, let listLength = uint32(payload + 17), payload + 21 + listLength <= at + 4 + length
        else { return [] }
        let list = String(decoding: bytes[(payload + 21)..<(payload + 21 + listLength)], as: UTF8.self)
        return list.split(separator: ",").map(String.init)
    }
}
