// WarmKeeperLoop: a warm keeper's one thread — the only one that touches its libssh2 session — serving every caller
// side by side: it accepts callers, takes a request once it has fully arrived (never waiting on a caller), and moves
// each caller's command (WarmCall) along without blocking, so a slow command holds back nobody else's.
import FoundationEssentials
import Glibc
import ShelfSSH
import ShelfSystem

final class KeeperLoop {
    private let connection: SSHConnection
    private var listener: Int32
    private let path: String
    private let inode: ino_t
    private let fingerprint: [UInt8]
    private var idleness: WarmIdle
    private var calls: [WarmCall] = []
    /// Callers accepted whose request has not fully arrived yet, and when they are given up on.
    private var arriving: [(fd: Int32, deadline: ContinuousClock.Instant)] = []
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 1)
    /// How long the watch on the server (keepalives, ServerAliveCountMax) lets the loop sleep.
    private var watchWait = Duration.seconds(1)
    /// When the socket path is next looked at for a takeover (a stat): once a second at most, not every turn.
    private var nextOwnershipCheck = ContinuousClock.now
    /// What poll is given each turn, and where each call's descriptors start in it (kept, not rebuilt).
    private var fds: [pollfd] = []
    private var callFDs: [Int] = []

    /// The host keys checked again before each command (nil: they hold; else the refusal a login would meet).
    private let recheck: () -> SSHError?

    init(
        connection: SSHConnection, listener: Int32, path: String, inode: ino_t, fingerprint: [UInt8], idle: Duration,
        recheck: @escaping () -> SSHError?
    ) {
        self.connection = connection
        self.recheck = recheck
        self.listener = listener
        self.path = path
        self.inode = inode
        self.fingerprint = fingerprint
        idleness = WarmIdle(idle: idle)
    }

    deinit {
        for call in calls { call.close() }
        for arrival in arriving { close(arrival.fd) }
        retire()
        buffer.deallocate()
    }

    /// Serves until idle for its time, told to stop, the session broke or its server stopped answering (the
    /// connection's watch: ServerAliveInterval / ServerAliveCountMax), or (once no longer reachable: its socket was
    /// replaced, or its host record changed) its last caller is served.
    func run() {
        while true {
            do {
                // The watch first: what it reads for the calls' channels is theirs to take right after.
                watchWait = try connection.keepWatch(reading: calls.isEmpty || calls.contains(where: \.readsOutput))
                try settleCalls()
            } catch {
                end(error)
                return
            }
            calls.removeAll { call in
                guard call.isOver else { return false }
                call.close()
                idleness.used()
                return true
            }
            // Another keeper for this host took the path over (or someone removed it): nobody can reach us.
            if listener >= 0 && ownershipCheckDue() && !PrivateSocket.ownsPath(path, inode: inode) { retire() }
            if listener < 0 && calls.isEmpty { return }
            if calls.isEmpty && arriving.isEmpty && idleness.expired { return }
            if waitAndHandle() == .stop { return }
        }
    }

    private enum Next { case goOn, stop }

    /// Moves every call as far as it goes without waiting. Each step first reads all the session's socket has,
    /// whichever channel it is for, and the socket does not announce again what the library took: a packet for a
    /// call stepped earlier in the round (a command's exit status or close behind its last output) would wait for
    /// the next poll's timeout. So the calls go round again until a round moved nothing and read nothing new.
    private func settleCalls() throws(SSHError) {
        while true {
            let received = connection.bytesReceived
            var moved = false
            for call in calls where try call.step(buffer) { moved = true }
            if !moved && connection.bytesReceived == received { return }
        }
    }

    /// Whether to look at the socket path now: a takeover only stops new callers from reaching us, so noticing it
    /// within a second (or the next wake-up) is as good as every turn, and spares a stat per turn.
    private func ownershipCheckDue() -> Bool {
        let now = ContinuousClock.now
        guard now >= nextOwnershipCheck else { return false }
        nextOwnershipCheck = now + .seconds(1)
        return true
    }

    private func waitAndHandle() -> Next {
        // While calls run the keeper is not idle: only the watch bounds the sleep (settleCalls left nothing unread).
        var wait = calls.isEmpty ? idleness.wait(keepalive: watchWait) : watchWait
        if !arriving.isEmpty {
            let now = ContinuousClock.now
            for index in arriving.indices where arriving[index].deadline < now {
                close(arriving[index].fd)
                arriving[index].fd = -1
            }
            arriving.removeAll { $0.fd < 0 }
            if let first = arriving.map(\.deadline).min() { wait = min(wait, max(.zero, first - now)) }
        }

        fds.removeAll(keepingCapacity: true)
        fds.append(pollfd(fd: listener, events: Int16(POLLIN), revents: 0))
        // Idle, the session's socket is still read: keepalive replies, the server's own keepalives, its close.
        fds.append(
            calls.isEmpty
                ? connection.watchPoll()
                : connection.commandsPoll(reading: calls.contains(where: \.readsOutput)))
        for arrival in arriving { fds.append(pollfd(fd: arrival.fd, events: Int16(POLLIN), revents: 0)) }
        callFDs.removeAll(keepingCapacity: true)
        for call in calls {
            callFDs.append(fds.count)
            call.addPollRequests(to: &fds)
        }
        let ready = poll(&fds, nfds_t(fds.count), wait == .zero ? 0 : WarmIdle.milliseconds(wait))
        guard ready > 0 else { return .goOn }
        for (call, index) in zip(calls, callFDs) { call.noticeCaller(fds[index].revents & ~Int16(POLLOUT)) }
        let waiting = arriving
        arriving.removeAll()
        for (offset, arrival) in waiting.enumerated() {
            guard fds[2 + offset].revents != 0 else {
                arriving.append(arrival)
                continue
            }
            switch WarmKeeperRequest.complete(arrival.fd) {
            case false?: arriving.append(arrival)
            case nil: close(arrival.fd)
            case true?: if take(arrival.fd) == .stop { return .stop }
            }
        }
        if fds[0].revents != 0 { return accept() }
        return .goOn
    }

    private func accept() -> Next {
        let client = CloseOnExec.accept(listener)
        guard client >= 0 else { return .goOn }
        guard PrivateSocket.peerIsUs(client) else {
            close(client)
            return .goOn
        }
        // A client that connects and says nothing must not be waited on for long (nor ever block the loop).
        PrivateSocket.setTimeout(client, seconds: 5, option: SO_RCVTIMEO)
        // A request already there with its connection is taken now: no turn of the loop of its own.
        switch WarmKeeperRequest.complete(client) {
        case true?: return take(client)
        case nil: close(client)
        case false?: arriving.append((client, ContinuousClock.now + .seconds(5)))
        }
        return .goOn
    }

    /// A caller's whole request is there: read it (without waiting) and act on it.
    private func take(_ client: Int32) -> Next {
        var reader = WarmSocket.Reader(client)
        let request = reader.next()
        var lent = reader.received
        defer { for fd in lent { close(fd) } }
        guard let (type, payload) = request else {
            close(client)
            return .goOn
        }
        switch type {
        case .stop:
            abandonAll("the warm session was stopped (sshelf warm stop)", sessionAlive: true)
            WarmSocket.send(client, .ok)
            close(client)
            return .stop
        case .exec where payload.count >= 33:
            guard Array(payload[0..<32]) == fingerprint else {
                WarmSocket.send(client, .fallback, Array("the host record changed since this session logged in".utf8))
                close(client)
                retire()
                return .goOn
            }
            // A key revoked (or a pin changed or removed) since the login: nothing more runs on this session. The
            // caller is sent back to log in on its own, which meets the refusal a cold login meets (and asks, if it
            // may, about a key no longer known); the keeper ends, stopping what still runs on the session.
            if let refusal = recheck() {
                WarmSocket.send(client, .fallback, Array(refusal.message.utf8))
                close(client)
                retire()
                abandonAll(refusal.message, sessionAlive: true)
                return .stop
            }
            let input = payload[32] & WarmSocket.stdinFlag != 0 ? lent.first : nil
            let command: SessionCommand
            do {
                command = try connection.startCommand(String(decoding: payload[33...], as: UTF8.self))
            } catch {
                // Nothing ran: the caller connects on its own — unless the server stopped answering, which its own
                // login would find too: it is told so. A broken or silent session ends the keeper too.
                let silent = error.kind == .timedOut
                WarmSocket.send(
                    client, silent ? .error : .fallback,
                    Array((silent ? error.message : "the warm session failed: " + error.message).utf8))
                close(client)
                guard error.kind == .disconnected || silent else { return .goOn }
                end(error)
                return .stop
            }
            // The lent stdin is the relay's now; it is closed with the call.
            var relay: StdinRelay? = nil
            if let input, let made = StdinRelay(client: client, input: input) {
                relay = made
                lent.removeAll { $0 == input }
            }
            calls.append(WarmCall(client: client, command: command, relay: relay, lent: relay == nil ? nil : input))
            idleness.used()
            return .goOn
        default:
            close(client)
            return .goOn
        }
    }

    /// The session broke or its server stopped answering (the watch's `.timedOut`): nobody new is taken (the socket
    /// goes first, so the next caller logs in on its own), and the callers are told why, output or not: their
    /// commands were started, so none falls back to run it again on a login of its own.
    private func end(_ error: SSHError) {
        retire()
        if error.kind == .timedOut {
            abandonAll(error.message, sessionAlive: false)
        } else {
            abandonAll("the warm session failed: " + error.message, sessionAlive: false)
        }
    }

    private func abandonAll(_ message: String, sessionAlive: Bool) {
        for call in calls {
            call.abandon(message, sessionAlive: sessionAlive)
            call.close()
        }
        calls.removeAll()
    }

    /// Stops taking callers (they connect on their own from now on) and lets the running ones end.
    private func retire() {
        guard listener >= 0 else { return }
        close(listener)
        listener = -1
        if PrivateSocket.ownsPath(path, inode: inode) { unlink(path) }
    }
}

enum WarmKeeperRequest {
    /// Whether a caller's first frame has fully arrived (nil: the caller closed or sent garbage). Peeked without a
    /// control buffer, so a descriptor riding along stays queued for the real read.
    static func complete(_ fd: Int32) -> Bool? {
        var header = [UInt8](repeating: 0, count: 5)
        let peeked = recv(fd, &header, 5, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT))
        if peeked == 0 { return nil }
        if peeked < 0 { return errno == EAGAIN || errno == EINTR ? false : nil }
        guard peeked == 5 else { return false }
        let length = Int(header[1]) << 24 | Int(header[2]) << 16 | Int(header[3]) << 8 | Int(header[4])
        guard length <= WarmSocket.maxFrame else { return nil }
        var available: Int32 = 0
        guard ioctl(fd, UInt(FIONREAD), &available) == 0 else { return nil }
        return Int(available) >= 5 + length
    }
}
