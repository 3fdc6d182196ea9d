// ForwardEngine: runs a host's forward rules (-L, -R, -D) over one logged-in connection with one poll() loop on
// the calling thread: non-blocking libssh2 plus the local sockets, many connections per forward. In a ForwardPool
// the first engine listens and hands connections to the others (one session and thread each) through `adopt`.
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

    private struct Forward {
        var rule: PortForwardRule
        var listeners: [Int32] = []
        var remoteListener: OpaquePointer?
        var status: ForwardStatus
    }

    private enum Op: Equatable {
        case read(Int)
        case write(Int)
        case eof(Int)
        case free(Int)
        case open(Int)
        case keepalive
    }

    private let connection: SSHConnection
    private let session: Session
    private let name: String
    private var forwards: [Forward] = []
    private var links: [Int: ForwardLink] = [:]
    private var nextLinkID = 0
    private var openQueue: [Int] = []
    private var opening: Int?
    private var pending: Op?
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 32768, alignment: 16)
    private let stopPipe: (read: Int32, write: Int32)
    /// Wakes the loop when another engine of the pool hands it a connection.
    private let wakePipe: (read: Int32, write: Int32)
    /// This engine's session among the pool's, and the balancer that spreads connections (nil when alone).
    private let member: (index: Int, balancer: ForwardBalancer)?
    private let lock = Lock()
    private var published: [ForwardStatus] = []
    /// Sockets handed over by another engine, and whether this one still takes them (guarded by `lock`).
    private var inbox: [(fd: Int32, forward: Int)] = []
    private var adopting = true
    private var lastKeepalive = Date()
    private var running = false
    /// libssh2's sends while `run()` runs, written once per pass (see ForwardSendBuffer), and what it replaced.
    private var outgoing: (buffer: ForwardSendBuffer, replaced: ForwardSendBuffer.Installed)?
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
            session.askKeepaliveReplies()
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
    private var listens: Bool { (member?.index ?? 0) == 0 }

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

    // MARK: setup

    private func add(_ rule: PortForwardRule) throws(SSHError) {
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

    private func releaseListeners() {
        for index in forwards.indices {
            for fd in forwards[index].listeners { close(fd) }
            forwards[index].listeners = []
        }
    }

    /// Frees every channel and cancels the server-side listeners (blocking: we are leaving), then closes sockets.
    private func shutDown() {
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
            link.closeSocket()
            if let channel = link.channel { _ = ChannelCall.free(channel) }
            link.channel = nil
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

    // MARK: the loop

    /// One round over everything; true when anything moved.
    private func pass() throws(SSHError) -> Bool {
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

    private func acceptLocal() -> Bool {
        var progress = false
        for index in forwards.indices {
            for listener in forwards[index].listeners {
                // A bounded batch per pass keeps a connection storm from starving the data already flowing.
                for _ in 0..<32 {
                    guard let fd = ForwardSocket.accept(listener) else { break }
                    progress = true
                    if let member {
                        let chosen = member.balancer.assign(spread: forwards[index].rule.sessions)
                        if chosen != member.index {
                            member.balancer.handOff(fd, forward: index, to: chosen)
                            continue
                        }
                    }
                    startLink(forward: index, fd: fd)
                }
            }
        }
        return progress
    }

    /// A new local connection of a -L or -D rule: queued for its channel, or reading its SOCKS request first.
    private func startLink(forward index: Int, fd: Int32) {
        let rule = forwards[index].rule
        let link = newLink(forward: index, fd: fd, phase: rule.kind == .dynamic ? .socks : .waitingToOpen)
        if rule.kind == .local {
            link.target = rule.spec.targetPart
            if rule.spec.targetIsSocket {
                link.socketPath = rule.targetHost
            } else {
                link.openMessage = ForwardLink.directTCPIPMessage(host: rule.targetHost, port: rule.targetPort)
            }
            openQueue.append(link.id)
        }
    }

    /// Takes an accepted socket from the pool's listening engine (any thread). False once this engine has stopped:
    /// the caller then closes the socket.
    func adopt(_ fd: Int32, forward: Int) -> Bool {
        lock.lock()
        guard adopting else {
            lock.unlock()
            return false
        }
        inbox.append((fd, forward))
        lock.unlock()
        var byte: UInt8 = 1
        _ = write(wakePipe.write, &byte, 1)
        return true
    }

    private func takeHandedOver() -> Bool {
        guard member != nil else { return false }
        lock.lock()
        let handed = inbox
        inbox = []
        lock.unlock()
        for (fd, forward) in handed { startLink(forward: forward, fd: fd) }
        return !handed.isEmpty
    }

    private func acceptRemote() throws(SSHError) -> Bool {
        var progress = false
        for index in forwards.indices {
            guard let listener = forwards[index].remoteListener else { continue }
            while pending == nil, let channel = libssh2_channel_forward_accept(listener) {
                progress = true
                let rule = forwards[index].rule
                if let member { member.balancer.add(member.index) }
                let link = newLink(forward: index, fd: -1, phase: .connecting)
                link.channel = channel
                link.target = "\(rule.targetHost):\(rule.targetPort)"
                switch ForwardSocket.startConnect(host: rule.targetHost, port: rule.targetPort) {
                case .success(let fd): link.fd = fd
                case .failure(let error): fail(link, error.message)
                }
            }
            let code = libssh2_session_last_errno(session.raw)
            if code != 0, code != LIBSSH2_ERROR_EAGAIN, isSessionLost(code) { throw lost() }
        }
        return progress
    }

    private func newLink(forward: Int, fd: Int32, phase: ForwardLink.Phase) -> ForwardLink {
        nextLinkID += 1
        let link = ForwardLink(id: nextLinkID, forward: forward, fd: fd, channel: nil, phase: phase)
        links[link.id] = link
        forwards[forward].status.activeConnections += 1
        forwards[forward].status.totalConnections += 1
        return link
    }

    private func retire(_ link: ForwardLink) {
        links[link.id] = nil
        forwards[link.forward].status.activeConnections -= 1
        if let member { member.balancer.release(member.index) }
    }

    /// Opens the channel of the first link in the queue; one at a time (libssh2 keeps one open state per session).
    private func openNext() throws(SSHError) -> Bool {
        if opening == nil {
            while let id = openQueue.first {
                openQueue.removeFirst()
                guard let link = links[id], link.phase == .waitingToOpen, !link.failed else { continue }
                link.phase = .opening
                opening = id
                break
            }
        }
        guard let id = opening, let link = links[id] else {
            opening = nil
            return false
        }
        guard may(.open(id)) else { return false }
        let code: Int32
        let opened =
            link.socketPath.map { ChannelCall.openDirectStreamlocal(session, path: $0) }
            ?? ChannelCall.openDirectTCPIP(
                session, message: link.openMessage, window: Self.windowSize,
                packet: Self.packetSize)
        switch opened {
        case .success(let channel):
            settleDone(.open(id))
            opening = nil
            link.channel = channel
            link.phase = .open
            if forwards[link.forward].rule.kind == .dynamic { link.toSocket.append(link.socks.success()) }
            return true
        case .failure(.wouldBlock):
            noteEAGAIN(.open(id))
            return false
        case .failure(.failed(let failed)):
            code = failed
        }
        settleDone(.open(id))
        opening = nil
        if isSessionLost(code) { throw lost() }
        let reason = "\(name) could not open a connection to \(link.target): \(session.lastError())"
        if forwards[link.forward].rule.kind == .dynamic {
            link.toSocket.append(link.socks.failure())
            link.phase = .refusing
            noteFailure(link, reason)
        } else {
            fail(link, reason)
            link.closeSocket()
            link.phase = .closing
        }
        return true
    }

    // MARK: one connection

    private func step(_ link: ForwardLink) throws(SSHError) -> Bool {
        switch link.phase {
        case .socks: return stepSocks(link)
        case .refusing: return stepRefusing(link)
        case .waitingToOpen, .opening: return false
        case .connecting: return stepConnecting(link)
        case .open: return try link.failed ? finishFailed(link) : stepOpen(link)
        case .closing: return try stepClosing(link)
        case .done: return false
        }
    }

    /// SOCKS refused (or its channel could not open): write the refusal, then close.
    private func stepRefusing(_ link: ForwardLink) -> Bool {
        let progress = flushToSocket(link)
        if link.toSocket.isEmpty || link.failed {
            link.closeSocket()
            link.phase = .done
            return true
        }
        return progress
    }

    private func stepSocks(_ link: ForwardLink) -> Bool {
        var progress = flushToSocket(link)
        let room = link.toChannel.space
        let count = read(link.fd, room.baseAddress, min(room.count, 1024))
        if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) {
            link.closeSocket()
            link.phase = .done
            return true
        }
        guard count > 0 else { return progress }
        progress = true
        var step = link.socks.feed(UnsafeRawBufferPointer(rebasing: room[0..<count]))
        if case .reply(let bytes) = step {
            link.toSocket.append(bytes)
            step = link.socks.feed([UInt8]())
        }
        switch step {
        case .needMore, .reply:
            break
        case .refuse(let reply, let reason):
            link.toSocket.append(reply)
            link.phase = .refusing
            noteFailure(link, "SOCKS request refused: \(reason)")
        case .connect(let target):
            link.target = "\(target.host):\(target.port)"
            link.toChannel.append(link.socks.leftover)
            link.openMessage = ForwardLink.directTCPIPMessage(host: target.host, port: target.port)
            link.phase = .waitingToOpen
            openQueue.append(link.id)
        }
        _ = flushToSocket(link)
        return progress
    }

    private func stepConnecting(_ link: ForwardLink) -> Bool {
        guard !link.failed else {
            link.closeSocket()
            link.phase = .closing
            return true
        }
        var pfd = pollfd(fd: link.fd, events: Int16(POLLOUT), revents: 0)
        guard poll(&pfd, 1, 0) == 1 else { return false }
        let code = ForwardSocket.finishConnect(link.fd)
        if code == 0 {
            link.phase = .open
        } else {
            fail(link, "could not connect to \(link.target): \(String(cString: strerror(code)))")
            link.closeSocket()
            link.phase = .closing
        }
        return true
    }

    private func stepOpen(_ link: ForwardLink) throws(SSHError) -> Bool {
        guard let channel = link.channel else { return false }
        var progress = false
        // Channel → socket.
        if link.reads(.downstream), !link.toSocket.isFull, may(.read(link.id)) {
            let answer = ChannelCall.read(channel, into: link.toSocket.space)
            if answer == .wouldBlock {
                noteEAGAIN(.read(link.id))
            } else {
                settleDone(.read(link.id))
            }
            switch answer {
            case .done(let count) where count > 0:
                link.toSocket.produced(count)
                forwards[link.forward].status.bytesIn += Int64(count)
                progress = true
            case .done, .wouldBlock:
                break
            case .eof:
                link.sourceEnded(.downstream)
                progress = true
            case .closed:
                if isSessionLost(answer.code) { throw lost() }
                link.sourceEnded(.downstream)
                progress = true
            case .failed(let code):
                if isSessionLost(code) { throw lost() }
                link.sourceEnded(.downstream)
                fail(link, "reading the channel failed: \(session.lastError())")
                progress = true
            }
        }
        progress = flushToSocket(link) || progress
        if link.toSocket.isEmpty, link.mustTellEnd(.downstream), link.fd >= 0 {
            shutdown(link.fd, Int32(SHUT_WR))
            link.endTold(.downstream)
            progress = true
        }
        // Socket → channel.
        if link.reads(.upstream), !link.toChannel.isFull, link.fd >= 0 {
            let room = link.toChannel.space
            let count = read(link.fd, room.baseAddress, room.count)
            if count > 0 {
                link.toChannel.produced(count)
                progress = true
            } else if count == 0 {
                link.sourceEnded(.upstream)
                progress = true
            } else if errno != EAGAIN && errno != EINTR {
                fail(link, "the local connection failed: \(String(cString: strerror(errno)))")
                return true
            }
        }
        // One libssh2 write sends at most one 32 KiB packet: keep writing while the window and socket take it.
        var writes = 0
        while !link.toChannel.isEmpty, !link.failed, writes < 16, may(.write(link.id)) {
            writes += 1
            let answer = ChannelCall.write(channel, link.toChannel.bytes)
            if case .done(let count) = answer {
                settleDone(.write(link.id))
                link.toChannel.consumed(count)
                forwards[link.forward].status.bytesOut += Int64(count)
                progress = true
            } else if answer == .wouldBlock {
                noteEAGAIN(.write(link.id))
                break
            } else {
                settleDone(.write(link.id))
                if case .failed(let code) = answer, isSessionLost(code) { throw lost() }
                fail(link, "writing to the channel failed: \(session.lastError())")
                return true
            }
        }
        if link.toChannel.isEmpty, link.mustTellEnd(.upstream), may(.eof(link.id)) {
            let answer = ChannelCall.sendEOF(channel)
            if answer == .wouldBlock {
                noteEAGAIN(.eof(link.id))
            } else {
                settleDone(.eof(link.id))
                if isSessionLost(answer.code) { throw lost() }
                link.endTold(.upstream)
                progress = true
            }
        }
        if link.isFinished {
            if pendingBelongs(to: link) { return progress }
            link.closeSocket()
            link.phase = .closing
            progress = true
        }
        return progress
    }

    /// A failed link whose libssh2 call is half-done: repeat exactly that call, then close.
    private func finishFailed(_ link: ForwardLink) throws(SSHError) -> Bool {
        link.closeSocket()
        guard let channel = link.channel, let op = pending, pendingBelongs(to: link) else {
            link.phase = .closing
            return true
        }
        let answer: ChannelCall.Answer
        switch op {
        case .read: answer = ChannelCall.read(channel, into: scratch)
        case .write: answer = ChannelCall.write(channel, link.toChannel.bytes)
        case .eof: answer = ChannelCall.sendEOF(channel)
        default: answer = .done(0)
        }
        if answer == .wouldBlock {
            noteEAGAIN(op)
            return false
        }
        settleDone(op)
        if answer.code < 0, isSessionLost(answer.code) { throw lost() }
        link.phase = .closing
        return true
    }

    private func stepClosing(_ link: ForwardLink) throws(SSHError) -> Bool {
        link.closeSocket()
        guard let channel = link.channel else {
            link.phase = .done
            return true
        }
        guard may(.free(link.id)) else { return false }
        let answer = ChannelCall.free(channel)
        if answer == .wouldBlock {
            noteEAGAIN(.free(link.id))
            return false
        }
        settleDone(.free(link.id))
        link.channel = nil
        link.phase = .done
        if isSessionLost(answer.code) { throw lost() }
        return true
    }

    private func flushToSocket(_ link: ForwardLink) -> Bool {
        guard !link.toSocket.isEmpty, link.fd >= 0 else { return false }
        let bytes = link.toSocket.bytes
        let written = send(link.fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
        if written > 0 {
            link.toSocket.consumed(written)
            return true
        }
        if written < 0, errno != EAGAIN, errno != EINTR {
            link.toSocket.clear()
            fail(link, "the local connection failed: \(String(cString: strerror(errno)))")
            return true
        }
        return false
    }

    private func fail(_ link: ForwardLink, _ reason: String) {
        guard link.fail() else { return }
        noteFailure(link, reason)
    }

    private func noteFailure(_ link: ForwardLink, _ reason: String) {
        forwards[link.forward].status.failedConnections += 1
        forwards[link.forward].status.lastError = reason
        forwards[link.forward].status.lastErrorAt = Date()
    }

    // MARK: the half-sent-packet rule

    private func may(_ op: Op) -> Bool { pending == nil || pending == op }

    private func pendingBelongs(to link: ForwardLink) -> Bool {
        switch pending {
        case .read(let id), .write(let id), .eof(let id), .free(let id), .open(let id): id == link.id
        case .keepalive, nil: false
        }
    }

    /// EAGAIN with outbound bytes left inside libssh2 means this call owns the half-sent packet.
    private func noteEAGAIN(_ op: Op) {
        if libssh2_session_block_directions(session.raw) & LIBSSH2_SESSION_BLOCK_OUTBOUND != 0 {
            pending = op
        } else if pending == op {
            pending = nil
        }
    }

    private func settleDone(_ op: Op) {
        if pending == op { pending = nil }
    }

    private func settle(_ op: Op, code: Int32) throws(SSHError) {
        if code == LIBSSH2_ERROR_EAGAIN {
            noteEAGAIN(op)
            return
        }
        settleDone(op)
        if code < 0, isSessionLost(code) { throw lost() }
    }

    private func isSessionLost(_ code: Int32) -> Bool {
        let lostCodes: [Int32] = [
            LIBSSH2_ERROR_SOCKET_DISCONNECT, LIBSSH2_ERROR_SOCKET_RECV, LIBSSH2_ERROR_SOCKET_SEND,
            LIBSSH2_ERROR_SOCKET_TIMEOUT, LIBSSH2_ERROR_TIMEOUT,
        ]
        return lostCodes.contains(code) || lostCodes.contains(libssh2_session_last_errno(session.raw))
    }

    private func lost() -> SSHError {
        SSHError(.disconnected, "the connection to \(name) was lost", library: session.lastError())
    }

    // MARK: waiting

    private func stopWasRequested() -> Bool {
        var pfd = pollfd(fd: stopPipe.read, events: Int16(POLLIN), revents: 0)
        return poll(&pfd, 1, 0) == 1
    }

    /// Sleeps until a socket is ready; true when stop() was called.
    private func waitForEvents() throws(SSHError) -> Bool {
        var fds: [pollfd] = [pollfd(fd: stopPipe.read, events: Int16(POLLIN), revents: 0)]
        if member != nil {
            // Drain the wake-ups already counted for (their sockets are taken at the top of each pass).
            var bytes = (UInt64(0), UInt64(0))
            while withUnsafeMutableBytes(of: &bytes, { read(wakePipe.read, $0.baseAddress, $0.count) }) > 0 {}
            if takeHandedOver() { return false }
            fds.append(pollfd(fd: wakePipe.read, events: Int16(POLLIN), revents: 0))
        }
        // Read from the session only when someone will take what arrives; otherwise a full buffer would make the
        // readable socket wake us in a loop. Hang-ups are always watched.
        var wantSession = opening != nil || pending != nil || forwards.contains { $0.remoteListener != nil }
        for index in forwards.indices {
            for fd in forwards[index].listeners { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
        }
        for link in links.values where link.fd >= 0 {
            var events: Int16 = 0
            switch link.phase {
            case .socks:
                events |= Int16(POLLIN)
                if !link.toSocket.isEmpty { events |= Int16(POLLOUT) }
            case .refusing:
                if !link.toSocket.isEmpty { events |= Int16(POLLOUT) }
            case .connecting:
                events |= Int16(POLLOUT)
            case .open:
                if link.reads(.upstream) && !link.toChannel.isFull { events |= Int16(POLLIN) }
                if !link.toSocket.isEmpty { events |= Int16(POLLOUT) }
                if (link.reads(.downstream) && !link.toSocket.isFull) || !link.toChannel.isEmpty { wantSession = true }
            default:
                break
            }
            if events != 0 { fds.append(pollfd(fd: link.fd, events: events, revents: 0)) }
        }
        if links.values.contains(where: { $0.phase == .closing }) { wantSession = true }
        var sessionEvents = (wantSession ? Int16(POLLIN) | session.blockDirections : 0) | Self.pollReadHangup
        if outgoing?.buffer.isEmpty == false { sessionEvents |= Int16(POLLOUT) }
        fds.append(pollfd(fd: session.socket, events: sessionEvents, revents: 0))
        let timeout = Int32(
            max(100, min(Self.keepaliveSeconds - Date().timeIntervalSince(lastKeepalive), Self.keepaliveSeconds) * 1000)
        )
        let ready = poll(&fds, nfds_t(fds.count), timeout)
        if ready < 0, errno != EINTR {
            throw SSHError(.network, "poll failed: \(String(cString: strerror(errno)))")
        }
        if fds[0].revents != 0 { return true }
        let sessionReady = fds[fds.count - 1].revents
        if sessionReady & (Self.pollReadHangup | Int16(POLLHUP | POLLERR)) != 0 && !wantSession {
            // Nobody is reading: look without consuming to tell a dead server from pending data.
            var byte: UInt8 = 0
            let peeked = recv(session.socket, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
            if peeked == 0 || (peeked < 0 && errno != EAGAIN && errno != EINTR) { throw lost() }
            usleep(10_000)
        }
        return false
    }

    private func publish() {
        let snapshot = forwards.map(\.status)
        lock.lock()
        published = snapshot
        lock.unlock()
    }
}
