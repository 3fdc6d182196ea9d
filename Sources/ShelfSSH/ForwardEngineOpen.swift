// ForwardEngine's channel opening: the links queued for a channel open one at a time (libssh2 keeps one open state
// per session); the head of `openQueue` is the link whose channel is opening.
import CLibSSH2
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfSystem

extension ForwardEngine {
    /// The link whose channel is opening: the head of the queue once its turn came.
    var openingLink: ForwardLink? {
        guard let id = openQueue.first, let link = links[id], link.phase == .opening else { return nil }
        return link
    }

    /// Opens the channel of the first link in the queue; one at a time (libssh2 keeps one open state per session).
    func openNext() throws(SSHError) -> Bool {
        var progress = false
        while openingLink == nil, let id = openQueue.first {
            guard let link = links[id], link.phase == .waitingToOpen else {
                openQueue.removeFirst()
                continue
            }
            if link.failed {
                // Its socket broke while it waited (a SOCKS reply it could not take): close it without a channel.
                openQueue.removeFirst()
                move(link, try link.close())
                progress = true
                continue
            }
            move(link, try link.beginOpening())
        }
        guard let link = openingLink else { return progress }
        guard may(.open(link.id)) else { return progress }
        let code: Int32
        let opened =
            link.socketPath.map { ChannelCall.openDirectStreamlocal(session, path: $0) }
            ?? ChannelCall.openDirectTCPIP(
                session, message: link.openMessage, window: Self.windowSize,
                packet: Self.packetSize)
        switch opened {
        case .success(let channel):
            settleDone(.open(link.id))
            openQueue.removeFirst()
            move(link, try link.channelOpened(channel))
            if forwards[link.forward].rule.kind == .dynamic { link.toSocket.append(link.socks.success()) }
            return true
        case .failure(.wouldBlock):
            noteEAGAIN(.open(link.id))
            return progress
        case .failure(.failed(let failed)):
            code = failed
        }
        settleDone(.open(link.id))
        openQueue.removeFirst()
        if isSessionLost(code) { throw lost() }
        let reason = "\(name) could not open a connection to \(link.target): \(session.lastError())"
        if forwards[link.forward].rule.kind == .dynamic {
            move(link, try link.refuse(reply: link.socks.failure()))
            noteFailure(link, reason)
        } else {
            fail(link, reason)
            move(link, try link.close())
        }
        return true
    }
}
