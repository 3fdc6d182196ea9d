// ForwardLink: one connection through a forward — a local socket, an SSH channel, and a bounded buffer each
// way. Tracks half-close separately per direction so EOF one way keeps the other flowing.
import CLibSSH2
import FoundationEssentials
import ShelfCore

final class ForwardLink {
    enum Phase {
        /// Reading the client's SOCKS request.
        case socks
        /// Waiting for its turn to open a channel (libssh2 opens one channel at a time per session).
        case waitingToOpen
        case opening
        /// -R: the local connect to the target is in progress.
        case connecting
        case open
        /// The socket is closed; the channel is being closed and freed.
        case closing
        case done
    }

    let id: Int
    let forward: Int
    var fd: Int32
    var channel: OpaquePointer?
    var phase: Phase
    let toChannel = ForwardBuffer()
    let toSocket = ForwardBuffer()
    /// The client shut its write side (or the socket is gone).
    var socketReadDone = false
    var eofSent = false
    /// The far side sent EOF (or the channel is gone).
    var channelReadDone = false
    var socketWriteShut = false
    /// Something broke: move no more data, close as soon as no libssh2 call of ours is half-done.
    var failed = false
    /// SOCKS: close once the refusal in `toSocket` has been written.
    var closeAfterFlush = false
    var socks = SocksParser()
    /// The direct-tcpip open request, kept intact across EAGAIN retries (libssh2 wants the same arguments).
    var openMessage: [UInt8] = []
    var target = ""

    init(id: Int, forward: Int, fd: Int32, channel: OpaquePointer?, phase: Phase) {
        self.id = id
        self.forward = forward
        self.fd = fd
        self.channel = channel
        self.phase = phase
    }

    func closeSocket() {
        if fd >= 0 { close(fd) }
        fd = -1
    }

    /// The SSH `direct-tcpip` payload: target host and port, then the originator's address and port.
    static func directTCPIPMessage(host: String, port: Int, originator: String = "127.0.0.1", originatorPort: Int = 0)
        -> [UInt8]
    {
        var message: [UInt8] = []
        func string(_ text: String) {
            let bytes = Array(text.utf8)
            uint32(UInt32(bytes.count))
            message += bytes
        }
        func uint32(_ value: UInt32) {
            message += [
                UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF),
            ]
        }
        string(host)
        uint32(UInt32(port))
        string(originator)
        uint32(UInt32(originatorPort))
        return message
    }
}
