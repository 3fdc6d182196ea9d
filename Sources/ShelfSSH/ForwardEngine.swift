// ForwardEngine: runs a host's forward rules (-L, -R, -D) over one logged-in connection with one poll() loop on
// the calling thread: non-blocking libssh2 plus the local sockets, many connections per forward. In a ForwardPool
// the first engine listens and hands connections to the others (one session and thread each) through `adopt`.
// This file holds its state, setup and the loop; accepting, opening, pumping and waiting are its other files.
//
// libssh2 1.10 keeps a half-sent packet per session, not per channel: if a call returns EAGAIN with part of its
// packet still unsent, the *next* sending call completes that packet and silently drops its own. So after such
// an EAGAIN only the same call may run again until it finishes (`pending`). Opening channels is serialised too.
import CLibSSH2
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfSystem

public final class ForwardEngine: @unchecked Sendable {
    /// The server's window per channel: how much it may send before we read. Bounds libssh2's queue per channel.
    static let windowSize: UInt32 = 4 * 1024 * 1024
    static let packetSize: UInt32 = 32768
    static let keepaliveSeconds = 15.0
    /// POLLRDHUP (Linux): the peer closed its side. Glibc only exports it with _GNU_SOURCE.
    static let pollReadHangup: Int16 = 0x2000

    struct Forward {
        var rule: PortForwardRule
        var listeners: [Int32] = []
        var remoteListener: OpaquePointer?
        var status: ForwardStatus
    }

    enum Op: Equatable {
        case read(Int)
        case write(Int)
        case eof(Int)
        case free(Int)
        case open(Int)
        case keepalive
    }

    let connection: SSHConnection
    let session: Session
    let name: String
    var forwards: [Forward] = []
    var links: [Int: ForwardLink] = [:]
    var nextLinkID = 0
    /// Links waiting for a channel, in order; the head is the one opening when its phase says so.
    var openQueue: [Int] = []
    var pending: Op?
    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 32768, alignment: 16)
    let stopPipe: (read: Int32, write: Int32)
    /// Wakes the loop when another engine of the pool hands it a connection.
    let wakePipe: (read: Int32, write: Int32)
    /// This engine's session among the pool's, and the balancer that spreads connections (nil when alone).
    let member: (index: Int, balancer: ForwardBalancer)?
    let lock = Lock()
    var published: [ForwardStatus] = []
    /// Sockets handed over by another engine, and whether this one still takes them (guarded by `lock`).
    var inbox: [(fd: Int32, forward: Int)] = []
    var adopting = true
    var lastKeepalive = Date()
    /// libssh2's sends while `run()` runs, written once per pass (see ForwardSendBuffer), and what it replaced.
    var outgoing: (buffer: ForwardSendBuffer, replaced: ForwardSendBuffer.Installed)?
    /// The send buffer's size: the default, or a small one in tests.
    let sendBufferCapacity: Int

    /// A rule whose listening side could not be opened (`skipFailedRules`), and why.
    public struct RuleFailure: Sendable {
        public var rule: PortForwardRule
        public var error: SSHError
    }

    /// The rules left out because their listening side could not be opened (only with `skipFailedRules`).
    public private(set) var failedRules: [RuleFailure] = []

    /// Opens every rule's listening side: local sockets for -L and -D (a taken port is an error naming it), a
    /// listen request on the server for -R. Nothing is half-open when it throws. With `skipFailedRules`, a rule
    /// that cannot listen is left out (see `failedRules`) and the others run; it throws only when none can.
    public convenience init(
        connection: SSHConnection, rules: [PortForwardRule], hostName: String,
        skipFailedRules: Bool = false
    ) throws(SSHError) {
        try self.init(
            connection: connection, rules: rules, hostName: hostName, member: nil,
            skipFailedRules: skipFailedRules)
    }

    /// A lone engine with a send buffer of `sendBufferCapacity` bytes (tests: libssh2 then sees "would block" often).
    convenience init(
        connection: SSHConnection, rules: [PortForwardRule], hostName: String, sendBufferCapacity: Int
    ) throws(SSHError) {
        try self.init(
            connection: connection, rules: rules, hostName: hostName, member: nil,
            sendBufferCapacity: sendBufferCapacity)
    }

    /// A pool member: the first (index 0) listens and accepts; the others only serve connections handed to them.
    init(
        connection: SSHConnection, rules: [PortForwardRule], hostName: String,
        member: (index: Int, balancer: ForwardBalancer)?, sendBufferCapacity: Int = ForwardSendBuffer.defaultCapacity,
        skipFailedRules: Bool = false
    ) throws(SSHError) {
        self.connection = connection
        self.sendBufferCapacity = sendBufferCapacity
        session = connection.target
        name = hostName
        self.member = member
        var pipes: [(read: Int32, write: Int32)] = []
        for _ in 0..<2 {
            var pipeFDs: [Int32] = [-1, -1]
            guard CloseOnExec.pipe(&pipeFDs, nonBlocking: true) == 0 else {
                let reason = String(cString: strerror(errno))
                for made in pipes { close(made.read); close(made.write) }
                scratch.deallocate()
                throw SSHError(.network, "could not create the forward's control pipe: \(reason)")
            }
            pipes.append((pipeFDs[0], pipeFDs[1]))
        }
        stopPipe = pipes[0]
        wakePipe = pipes[1]
        do throws(SSHError) {
            for rule in rules {
                do throws(SSHError) { try add(rule) } catch {
                    guard skipFailedRules else { throw error }
                    failedRules.append(RuleFailure(rule: rule, error: error))
                }
            }
            if forwards.isEmpty, let first = failedRules.first { throw first.error }
        } catch {
            releaseListeners()
            throw error
        }
        publish()
    }

    deinit {
        releaseListeners()
        for fd in [stopPipe.read, stopPipe.write, wakePipe.read, wakePipe.write] { close(fd) }
        for handed in inbox { close(handed.fd) }
        scratch.deallocate()
    }

    /// Only the first engine of a pool opens listeners; the others show the rules' counts for their session.
    var listens: Bool { (member?.index ?? 0) == 0 }

    /// What each forward is doing now (safe from any thread).
    public func status() -> [ForwardStatus] {
        lock.lock()
        defer { lock.unlock() }
        return published
    }

    /// Ends `run()` (safe from any thread and from a signal source).
    public func stop() {
        var byte: UInt8 = 1
        _ = write(stopPipe.write, &byte, 1)
    }

    /// Moves data until `stop()` or until the connection is lost (thrown as `.disconnected`).
    public func run() throws(SSHError) {
        session.setBlocking(false)
        let buffer = ForwardSendBuffer(socket: session.socket, capacity: sendBufferCapacity)
        outgoing = (buffer, buffer.install(on: session))
        defer { shutDown() }
        var stopRequested = false
        while !stopRequested {
            var rounds = 0
            while try pass() {
                rounds += 1
                // Check for stop now and then even under full load.
                if rounds % 64 == 0, stopWasRequested() { return }
            }
            publish()
            stopRequested = try waitForEvents()
        }
    }

    func add(_ rule: PortForwardRule) throws(SSHError) {
        guard listens else {
            forwards.append(Forward(rule: rule, status: ForwardStatus(rule: rule, boundPort: rule.bindPort)))
            return
        }
        if let refusal = SocketForwardSupport.refusal(rule, hostName: name) { throw refusal }
        switch rule.kind {
        case .local, .dynamic:
            let (fds, port) = try ForwardSocket.listen(address: rule.bindAddress, port: rule.bindPort)
            forwards.append(Forward(rule: rule, listeners: fds, status: ForwardStatus(rule: rule, boundPort: port)))
        case .remote:
            var bound: Int32 = 0
            let address = rule.bindAddress == "*" ? "" : rule.bindAddress
            guard
                let listener = libssh2_channel_forward_listen_ex(session.raw, address, Int32(rule.bindPort), &bound, 64)
            else {
                throw SSHError(
                    .channelFailed, "\(name) refused to listen on its port \(rule.bindPort) (-R \(rule.spec))",
                    library: session.lastError(),
                    hint: "is the port in use on the server, or does its sshd forbid forwarding (AllowTcpForwarding)?")
            }
            forwards.append(
                Forward(
                    rule: rule, remoteListener: listener,
                    status: ForwardStatus(rule: rule, boundPort: rule.bindPort == 0 ? Int(bound) : rule.bindPort)))
        case .other(let kind):
            throw SSHError(.invalidConfiguration, "forward kind '\(kind)' is not known to this version of sshelf")
        }
    }

    func releaseListeners() {
        for index in forwards.indices {
            for fd in forwards[index].listeners { close(fd) }
            forwards[index].listeners = []
        }
    }

    /// Frees every channel and cancels the server-side listeners (blocking: we are leaving), then closes sockets.
    func shutDown() {
        lock.lock()
        adopting = false
        let unclaimed = inbox
        inbox = []
        lock.unlock()
        for handed in unclaimed {
            close(handed.fd)
            if let member { member.balancer.release(member.index) }
        }
        // What libssh2 believes it sent goes out before its own send is back (and before any blocking call).
        if let (buffer, replaced) = outgoing {
            buffer.drain(timeout: 2)
            buffer.uninstall(replaced, from: session)
            outgoing = nil
        }
        session.setBlocking(true)
        session.setTimeout(seconds: 2)
        for link in links.values {
            if let channel = link.abandon() { _ = ChannelCall.free(channel) }
        }
        links = [:]
        for index in forwards.indices {
            if let listener = forwards[index].remoteListener { _ = libssh2_channel_forward_cancel(listener) }
            forwards[index].remoteListener = nil
            forwards[index].status.activeConnections = 0
        }
        releaseListeners()
        session.setTimeout(seconds: 0)
        publish()
    }

    /// One round over everything; true when anything moved.
    func pass() throws(SSHError) -> Bool {
        var progress = false
        progress = acceptLocal() || progress
        progress = takeHandedOver() || progress
        progress = try acceptRemote() || progress
        progress = try openNext() || progress
        for link in Array(links.values) {
            progress = try step(link) || progress
            if link.phase == .done { retire(link) }
        }
        if pending == nil, Date().timeIntervalSince(lastKeepalive) > Self.keepaliveSeconds {
            lastKeepalive = Date()
            var next: Int32 = 0
            let code = libssh2_keepalive_send(session.raw, &next)
            try settle(.keepalive, code: code)
        }
        // The packets this pass produced leave together (what the socket does not take now waits for POLLOUT).
        if let buffer = outgoing?.buffer {
            buffer.flush()
            if buffer.failure != 0 { throw lost() }
        }
        return progress
    }
}
