// ForwardLink: one connection through a forward — a local socket, an SSH channel, and a bounded buffer each
// way. Its lifecycle is `Phase`, moved only by its event methods (swift-nio-ssh's ChildChannelStateMachine: private
// state, one method per event, an exhaustive switch, an invalid move thrown); once open, each direction has its own
// state (`Flow`), so EOF one way keeps the other flowing, and a failure stops both.
import CLibSSH2
import FoundationEssentials
import Glibc
import ShelfCore

final class ForwardLink {
    enum Phase: Equatable, CaseIterable {
        /// -D: reading the client's SOCKS request.
        case socks
        /// SOCKS: the refusal in `toSocket` is being written; then the socket closes.
        case refusing
        /// Waiting for its turn to open a channel (libssh2 opens one channel at a time per session).
        case waitingToOpen
        /// Its channel is being opened (the head of the engine's open queue).
        case opening
        /// -R: the local connect to the target is in progress.
        case connecting
        case open
        /// The socket is closed; the channel is being closed and freed.
        case closing
        case done
    }

    /// An event that does not apply to the link's phase: a fault of the engine, never of the peers. The engine
    /// closes the link and reports it as that connection's failure.
    struct InvalidMove: Error, Equatable, CustomStringConvertible {
        var event: String
        var phase: Phase
        var description: String { "\(event) while \(phase)" }
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
    /// The local socket; -1 once closed (or when a -R target could not be reached).
    private(set) var fd: Int32
    private(set) var channel: OpaquePointer?
    private(set) var phase: Phase
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

    /// Where a link starts: the only phases a new one can be in.
    enum Start {
        /// -D: accepted on a local socket; the SOCKS request comes first.
        case socks
        /// -L: accepted on a local socket; its channel is to be opened.
        case waitingToOpen
        /// -R: the server opened the channel; the connect to the target started.
        case connecting(channel: OpaquePointer)
    }

    init(id: Int, forward: Int, fd: Int32, start: Start) {
        self.id = id
        self.forward = forward
        self.fd = fd
        switch start {
        case .socks: phase = .socks
        case .waitingToOpen: phase = .waitingToOpen
        case .connecting(let opened):
            channel = opened
            phase = .connecting
        }
    }

    /// Closes the local socket; the phase is unchanged (a failed link keeps its channel until its call is done).
    func closeSocket() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    // MARK: events

    /// -D: the client asked for `host`:`port`; its channel waits for its turn.
    func socksConnect(host: String, port: Int) throws(InvalidMove) {
        switch phase {
        case .socks:
            target = "\(host):\(port)"
            toChannel.append(socks.leftover)
            openMessage = Self.directTCPIPMessage(host: host, port: port)
            phase = .waitingToOpen
        case .refusing, .waitingToOpen, .opening, .connecting, .open, .closing, .done:
            throw InvalidMove(event: "a SOCKS request", phase: phase)
        }
    }

    /// -D: the request is refused (by the parser, or the server would not open its channel): `reply` goes to the
    /// client, then the socket closes.
    func refuse(reply: [UInt8]) throws(InvalidMove) {
        switch phase {
        case .socks, .opening:
            toSocket.append(reply)
            phase = .refusing
        case .refusing, .waitingToOpen, .connecting, .open, .closing, .done:
            throw InvalidMove(event: "a SOCKS refusal", phase: phase)
        }
    }

    /// The SOCKS client left before asking, or its refusal was written: the socket closes; no channel was opened.
    func socketFinished() throws(InvalidMove) {
        switch phase {
        case .socks, .refusing:
            closeSocket()
            phase = .done
        case .waitingToOpen, .opening, .connecting, .open, .closing, .done:
            throw InvalidMove(event: "the socket's end", phase: phase)
        }
    }

    /// Its turn to open a channel came.
    func beginOpening() throws(InvalidMove) {
        switch phase {
        case .waitingToOpen: phase = .opening
        case .socks, .refusing, .opening, .connecting, .open, .closing, .done:
            throw InvalidMove(event: "the turn to open", phase: phase)
        }
    }

    /// The server opened the channel.
    func channelOpened(_ opened: OpaquePointer) throws(InvalidMove) {
        switch phase {
        case .opening:
            channel = opened
            phase = .open
        case .socks, .refusing, .waitingToOpen, .connecting, .open, .closing, .done:
            throw InvalidMove(event: "an opened channel", phase: phase)
        }
    }

    /// -R: the connect to the target finished.
    func targetConnected() throws(InvalidMove) {
        switch phase {
        case .connecting: phase = .open
        case .socks, .refusing, .waitingToOpen, .opening, .open, .closing, .done:
            throw InvalidMove(event: "a finished connect", phase: phase)
        }
    }

    /// The connection is over (both directions ended, or it failed): the socket closes, the channel is to be freed.
    func close() throws(InvalidMove) {
        switch phase {
        case .socks, .refusing, .waitingToOpen, .opening, .connecting, .open:
            closeSocket()
            phase = .closing
        case .closing, .done:
            throw InvalidMove(event: "a close", phase: phase)
        }
    }

    /// The channel was freed (or there was none): the link is over.
    func channelFreed() throws(InvalidMove) {
        switch phase {
        case .closing:
            channel = nil
            phase = .done
        case .socks, .refusing, .waitingToOpen, .opening, .connecting, .open, .done:
            throw InvalidMove(event: "a freed channel", phase: phase)
        }
    }

    /// The engine gives the link up (it stops, or it made an invalid move): from any phase, the socket closes and
    /// the link is closing (its channel still to free) or done. Returns the channel to free.
    @discardableResult
    func abandon() -> OpaquePointer? {
        closeSocket()
        switch phase {
        case .socks, .refusing, .waitingToOpen, .opening, .connecting, .open, .closing:
            phase = channel == nil ? .done : .closing
        case .done:
            break
        }
        return channel
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
