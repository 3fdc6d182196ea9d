// HostCertificateProbe: a host's certificate read over a stream that takes the login's own path — for a hop behind a
// jump host, a second direct-tcpip channel of the verified jump session; behind a ProxyCommand, a second run of the
// command — where `ssh-keyscan` straight to the address may reach nothing, or another machine. It speaks only the
// clear-text start of the SSH transport: a version line, a KEXINIT offering curve25519 and the certificate host key
// algorithms alone, and an ECDH init with a throwaway public value; the server's ECDH reply carries its host key —
// the certificate — before anything is encrypted, and the probe hangs up there (no credential, no user name). What
// comes back vouches for nothing by itself: HostCertificateTrust checks it in full and requires it to certify the
// very key the login's handshake proved.
import FoundationEssentials
import Glibc
import ShelfCore

enum HostCertificateProbe {
    /// The certificate host key algorithms offered, in the order libssh2 prefers their plain keys.
    static let algorithms = [
        "ssh-ed25519-cert-v01@openssh.com", "ecdsa-sha2-nistp256-cert-v01@openssh.com",
        "ecdsa-sha2-nistp384-cert-v01@openssh.com", "ecdsa-sha2-nistp521-cert-v01@openssh.com",
        "rsa-sha2-512-cert-v01@openssh.com", "rsa-sha2-256-cert-v01@openssh.com",
    ]
    /// Beyond this many bytes from the server without its ECDH reply, it is not an SSH server worth reading.
    static let readLimit = 256 * 1024

    /// The certificate the server at the other end of `fd` presents (empty: none, no SSH server, a timeout).
    static func certificates(over fd: Int32, timeout: Double) -> [[UInt8]] {
        var wait = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1_000_000))
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        let hello = Array("SSH-2.0-sshelf_certificate_probe\r\n".utf8) + packet(kexInit()) + packet(ecdhInit())
        guard hello.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == hello.count
        else { return [] }
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while buffer.count < readLimit {
            switch hostKey(in: buffer) {
            case .found(let blob): return [blob]
            case .none: return []
            case .more: break
            }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return [] }
            buffer += chunk[0..<count]
        }
        return []
    }

    enum Reading: Equatable { case found([UInt8]), none, more }

    /// The host key blob of the server's KEX_ECDH_REPLY in `bytes` (its lines, version line and packets in the
    /// clear), `.more` while it has not all come, `.none` for a disconnect or anything that is not that.
    static func hostKey(in bytes: [UInt8]) -> Reading {
        var at = 0
        while true {
            guard let end = bytes[at...].firstIndex(of: 0x0A) else { return .more }
            let isVersion = bytes[at..<end].starts(with: Array("SSH-".utf8))
            at = end + 1
            if isVersion { break }
        }
        func uint32(_ index: Int) -> Int? {
            guard index >= 0, index + 4 <= bytes.count else { return nil }
            return bytes[index..<index + 4].reduce(0) { $0 << 8 | Int($1) }
        }
        while true {
            guard let length = uint32(at) else { return .more }
            guard length >= 2, length <= readLimit else { return .none }
            guard bytes.count >= at + 4 + length else { return .more }
            let padding = Int(bytes[at + 4])
            let payload = (at + 5)..<(at + 4 + length - padding)
            guard padding < length, !payload.isEmpty else { return .none }
            switch bytes[payload.lowerBound] {
            case 31:  // SSH_MSG_KEX_ECDH_REPLY: string K_S (the host key), string Q_S, string signature
                guard let keyLength = uint32(payload.lowerBound + 1), keyLength > 0,
                    payload.lowerBound + 5 + keyLength <= payload.upperBound
                else { return .none }
                return .found(Array(bytes[(payload.lowerBound + 5)..<(payload.lowerBound + 5 + keyLength)]))
            case 20, 2, 4:  // the server's KEXINIT, IGNORE, DEBUG
                at += 4 + length
            default:  // a DISCONNECT (no algorithm in common) or anything else
                return .none
            }
        }
    }

    /// An unencrypted binary packet: length, padding length, payload, at least 4 bytes of padding to a multiple of 8.
    static func packet(_ payload: [UInt8]) -> [UInt8] {
        var padding = 8 - (5 + payload.count) % 8
        if padding < 4 { padding += 8 }
        return SSHWire.uint32(UInt32(1 + payload.count + padding)) + [UInt8(padding)] + payload
            + [UInt8](repeating: 0, count: padding)
    }

    private static func kexInit() -> [UInt8] {
        let lists = [
            "curve25519-sha256,curve25519-sha256@libssh.org", algorithms.joined(separator: ","),
            "aes128-ctr,aes256-ctr,aes128-gcm@openssh.com,chacha20-poly1305@openssh.com",
            "aes128-ctr,aes256-ctr,aes128-gcm@openssh.com,chacha20-poly1305@openssh.com",
            "hmac-sha2-256,hmac-sha2-512", "hmac-sha2-256,hmac-sha2-512", "none", "none", "", "",
        ]
        let cookie = (0..<16).map { _ in UInt8.random(in: 0...255) }
        return [20] + cookie + lists.flatMap { SSHWire.string(Array($0.utf8)) } + [0, 0, 0, 0, 0]
    }

    /// SSH_MSG_KEX_ECDH_INIT with a random curve25519 public value: no shared secret is ever computed from it.
    private static func ecdhInit() -> [UInt8] {
        [30] + SSHWire.string((0..<32).map { _ in UInt8.random(in: 0...255) })
    }
}
