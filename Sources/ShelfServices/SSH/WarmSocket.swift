// WarmSocket: the unix socket between `sshelf exec` and a warm-session keeper — where it lives (a 0700 directory in
// the runtime dir, one 0600 socket per host; PrivateSocket binds it and checks the peer's uid), the fingerprint of
// the host record a keeper logged in with, and the binary-safe frames (type byte, 4-byte big-endian length, bytes).
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfSSH
import ShelfSystem

enum WarmSocket {
    /// Frame types. Requests: exec, stop. Replies: stdout, stderr, exit, fallback, error, ok.
    enum Frame: UInt8 {
        case exec = 0x58  // 'X': fingerprint(32) + flags(1) + command; stdin rides along as SCM_RIGHTS
        case stop = 0x53  // 'S'
        case stdout = 0x01
        case stderr = 0x02
        case exit = 0x78  // 'x': Int32 big-endian
        case fallback = 0x46  // 'F': nothing ran; connect normally (message says why)
        case error = 0x45  // 'E': failed after output began
        case ok = 0x4B  // 'K'
    }

    static let stdinFlag: UInt8 = 1
    /// Refuses anything bigger than this in a request (a command line) or a reply frame (one 256 KiB read).
    static let maxFrame = 4 * 1024 * 1024

    static func directory(_ locations: DataLocations) -> String { locations.runtimeDirectory + "/warm" }

    static func path(_ locations: DataLocations, host: UUID) -> String {
        directory(locations) + "/" + host.uuidString.lowercased() + ".sock"
    }

    /// What a keeper's login depends on, for every hop: address, port, user, identity, pinned key. A keeper only
    /// serves a request whose fingerprint matches the one it logged in with.
    static func fingerprint(_ endpoints: [SSHEndpoint]) -> [UInt8] {
        var text = ""
        for hop in endpoints {
            let fields = [
                hop.hostID?.uuidString ?? "", hop.hostname, String(hop.port), hop.user,
                hop.authMethod.rawValue, hop.identity?.id.uuidString ?? "", hop.identity?.keyFile ?? "",
                hop.pinnedHostKey?.type ?? "", hop.pinnedHostKey?.key ?? "",
            ]
            text += fields.map { String($0.utf8.count) + ":" + $0 }.joined() + ";"
        }
        return Digest.sha256(Array(text.utf8))
    }

    // MARK: frames

    static func frameHeader(_ type: Frame, length: Int) -> [UInt8] {
        let size = UInt32(length)
        return [
            type.rawValue, UInt8(size >> 24), UInt8((size >> 16) & 0xff), UInt8((size >> 8) & 0xff), UInt8(size & 0xff),
        ]
    }

    /// Sends one frame (never SIGPIPE); `passing` is a descriptor sent with it as SCM_RIGHTS. Header and payload go
    /// in one write: a reader that waits for a whole frame (the keeper) wakes once for it, not once for each part.
    @discardableResult
    static func send(_ fd: Int32, _ type: Frame, _ payload: UnsafeRawBufferPointer, passing: Int32? = nil) -> Bool {
        let frame = frameHeader(type, length: payload.count) + payload
        return frame.withUnsafeBytes { sendAll(fd, $0, passing: passing) }
    }

    @discardableResult
    static func send(_ fd: Int32, _ type: Frame, _ payload: [UInt8] = [], passing: Int32? = nil) -> Bool {
        payload.withUnsafeBytes { send(fd, type, $0, passing: passing) }
    }

    static func sendAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, passing: Int32?) -> Bool {
        var offset = 0
        var pass = passing
        while offset < bytes.count {
            let sent: Int
            if let descriptor = pass {
                sent = sendWithDescriptor(fd, UnsafeRawBufferPointer(rebasing: bytes[offset...]), descriptor)
                pass = nil
            } else {
                sent = Glibc.send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += sent
        }
        return true
    }

    private static func sendWithDescriptor(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, _ descriptor: Int32) -> Int {
        let space = cmsgSpace(MemoryLayout<Int32>.size)
        let control = UnsafeMutableRawPointer.allocate(byteCount: space, alignment: 8)
        defer { control.deallocate() }
        memset(control, 0, space)
        let header = control.assumingMemoryBound(to: cmsghdr.self)
        header.pointee.cmsg_level = SOL_SOCKET
        header.pointee.cmsg_type = Int32(SCM_RIGHTS)
        header.pointee.cmsg_len = cmsgLength(MemoryLayout<Int32>.size)
        (control + cmsgHeaderSize).storeBytes(of: descriptor, as: Int32.self)
        var vector = iovec(iov_base: UnsafeMutableRawPointer(mutating: bytes.baseAddress), iov_len: bytes.count)
        return withUnsafeMutablePointer(to: &vector) { iov in
            var message = msghdr()
            message.msg_iov = iov
            message.msg_iovlen = 1
            message.msg_control = control
            message.msg_controllen = space
            return sendmsg(fd, &message, Int32(MSG_NOSIGNAL))
        }
    }

    /// A reader that keeps every descriptor passed along (SCM_RIGHTS) in `received`.
    struct Reader {
        let fd: Int32
        var received: [Int32] = []

        init(_ fd: Int32) { self.fd = fd }

        /// Next frame, or nil at EOF, on an error, or for a frame that is too big or of an unknown type.
        mutating func next() -> (Frame, [UInt8])? {
            guard let header = read(5) else { return nil }
            let length = Int(header[1]) << 24 | Int(header[2]) << 16 | Int(header[3]) << 8 | Int(header[4])
            guard let type = Frame(rawValue: header[0]), length <= WarmSocket.maxFrame else { return nil }
            guard let payload = read(length) else { return nil }
            return (type, payload)
        }

        private mutating func read(_ count: Int) -> [UInt8]? {
            var bytes = [UInt8](repeating: 0, count: count)
            var offset = 0
            let space = WarmSocket.cmsgSpace(MemoryLayout<Int32>.size * 4)
            let control = UnsafeMutableRawPointer.allocate(byteCount: space, alignment: 8)
            defer { control.deallocate() }
            while offset < count {
                let got = bytes.withUnsafeMutableBytes { raw -> Int in
                    var vector = iovec(iov_base: raw.baseAddress! + offset, iov_len: count - offset)
                    return withUnsafeMutablePointer(to: &vector) { iov in
                        var message = msghdr()
                        message.msg_iov = iov
                        message.msg_iovlen = 1
                        message.msg_control = control
                        message.msg_controllen = space
                        let result = recvmsg(fd, &message, Int32(MSG_CMSG_CLOEXEC))
                        if result >= 0 { collect(&message) }
                        return result
                    }
                }
                if got < 0 && errno == EINTR { continue }
                if got <= 0 { return nil }
                offset += got
            }
            return bytes
        }

        private mutating func collect(_ message: inout msghdr) {
            guard message.msg_controllen >= WarmSocket.cmsgHeaderSize, let control = message.msg_control else { return }
            let header = control.assumingMemoryBound(to: cmsghdr.self).pointee
            guard header.cmsg_level == SOL_SOCKET, header.cmsg_type == Int32(SCM_RIGHTS) else { return }
            let count = (Int(header.cmsg_len) - WarmSocket.cmsgHeaderSize) / MemoryLayout<Int32>.size
            for index in 0..<max(0, count) {
                received.append((control + WarmSocket.cmsgHeaderSize).load(fromByteOffset: index * 4, as: Int32.self))
            }
        }
    }

    // CMSG_* are macros Swift does not import; on Linux the header is 16 bytes and data is 8-byte aligned.
    static let cmsgHeaderSize = (MemoryLayout<cmsghdr>.size + 7) & ~7
    static func cmsgSpace(_ length: Int) -> Int { cmsgHeaderSize + ((length + 7) & ~7) }
    static func cmsgLength(_ length: Int) -> Int { cmsgHeaderSize + length }

    static func int32Bytes(_ value: Int32) -> [UInt8] {
        let bits = UInt32(bitPattern: value)
        return [UInt8(bits >> 24), UInt8((bits >> 16) & 0xff), UInt8((bits >> 8) & 0xff), UInt8(bits & 0xff)]
    }

    static func int32(_ bytes: [UInt8]) -> Int32? {
        guard bytes.count == 4 else { return nil }
        return Int32(
            bitPattern: UInt32(bytes[0]) << 24 | UInt32(bytes[1]) << 16 | UInt32(bytes[2]) << 8 | UInt32(bytes[3]))
    }
}
