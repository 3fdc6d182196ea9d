// ForwardEngine's waiting: one poll() over the stop and wake pipes, the listeners, each link's socket as its phase
// needs, and the session's socket only when someone will take what arrives.
import CLibSSH2
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfSystem

extension ForwardEngine {

    func stopWasRequested() -> Bool {
        var pfd = pollfd(fd: stopPipe.read, events: Int16(POLLIN), revents: 0)
        return poll(&pfd, 1, 0) == 1
    }

    /// Sleeps until a socket is ready; true when stop() was called.
    func waitForEvents() throws(SSHError) -> Bool {
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
        var wantSession = openingLink != nil || pending != nil || forwards.contains { $0.remoteListener != nil }
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
            case .waitingToOpen, .opening, .closing, .done:
                // Its socket waits for the channel, or is already closed.
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

    func publish() {
        let snapshot = forwards.map(\.status)
        lock.lock()
        published = snapshot
        lock.unlock()
    }
}
