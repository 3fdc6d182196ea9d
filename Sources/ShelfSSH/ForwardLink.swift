// ForwardLink: one connection through a forward — a local socket, an SSH channel, and a bounded buffer each
// way. Its lifecycle is `Phase`; once open, each direction has its own state (`Flow`, as swift-nio-ssh's
// ChildChannelStateMachine tracks each side), so EOF one way keeps the other flowing, and a failure stops both.
import CLibSSH2
import FoundationEssentials
import ShelfCore

final class ForwardLink {
    enum Phase {
        /// Reading the client's SOCKS request.
        case socks
        /// SOCKS: the refusal in `toSocket` is being written; then the socket closes.
        case refusing
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

    /// One direction: socket → channel (`upstream`) or channel → socket (`downstream`).
    enum Direction { case upstream, downstream }

    /// Where one direction is. `open` → `draining` (its source ended) → `closed` (its sink was told); any state →
    /// `failed` (both directions at once).
    enum Flow: Equatable {
        /// Read from the source, write to the sink.
        case open
        /// The source ended (EOF, or it is gone): nothing more is read; what is buffered still goes to the sink.
        case draining
        /// The sink was told the end (EOF sent on the channel, SHUT_WR on the socket): this direction is over.
        case closed
        /// Something broke: move no more data, close as soon as no libssh2 call of ours is half-done.
        case failed
    }

    let id: Int
    let forward: Int
    var fd: Int32
    var channel: OpaquePointer?
    var phase: Phase
    let toChannel = ForwardBuffer()
    let toSocket = ForwardBuffer()
    /// The client's data to the channel: its read side ends at the client's EOF, its write side with our EOF.
    private(set) var upstream = Flow.open
    /// The server's data to the client: its read side ends at the channel's EOF, its write side with SHUT_WR.
    private(set) var downstream = Flow.open
    var socks = SocksParser()
    /// The direct-tcpip open request, kept intact across EAGAIN retries (libssh2 wants the same arguments).
    var openMessage: [UInt8] = []
    /// -L to a unix socket on the server: its path (opened through direct-streamlocal instead of `openMessage`).
    var socketPath: String?
    var target = ""

    var failed: Bool { upstream == .failed }

    /// Whether `direction` still reads from its source.
    func reads(_ direction: Direction) -> Bool { flow(direction) == .open }

    /// Whether `direction`'s source ended and its sink is still to be told (a failed link tells nobody).
    func mustTellEnd(_ direction: Direction) -> Bool { flow(direction) == .draining }

    /// Both directions are over, or the link failed: time to close it.
    var isFinished: Bool { failed || (upstream == .closed && downstream == .closed) }

    /// The source of `direction` ended (EOF read, or the peer is gone).
    func sourceEnded(_ direction: Direction) {
        if flow(direction) == .open { set(direction, .draining) }
    }

    /// The sink of `direction` was told the end; only after its source ended.
    func endTold(_ direction: Direction) {
        if flow(direction) == .draining { set(direction, .closed) }
    }

    /// Something broke: both directions stop. False when the link had already failed (report a failure once).
    @discardableResult
    func fail() -> Bool {
        guard !failed else { return false }
        upstream = .failed
        downstream = .failed
        return true
    }

    private func flow(_ direction: Direction) -> Flow {
        direction == .upstream ? upstream : downstream
    }

    private func set(_ direction: Direction, _ flow: Flow) {
        if direction == .upstream { upstream = flow } else { downstream = flow }
    }

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
