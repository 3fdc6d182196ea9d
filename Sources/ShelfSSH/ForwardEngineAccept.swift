// ForwardEngine's accepting side: new local connections (-L, -D), sockets handed over by the pool's listening engine,
// and channels the server opens for -R; each becomes a ForwardLink in its first phase.
import CLibSSH2
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfSystem

extension ForwardEngine {
    func acceptLocal() -> Bool {
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
    func startLink(forward index: Int, fd: Int32) {
        let rule = forwards[index].rule
        let link = newLink(forward: index, fd: fd, start: rule.kind == .dynamic ? .socks : .waitingToOpen)
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

    func takeHandedOver() -> Bool {
        guard member != nil else { return false }
        lock.lock()
        let handed = inbox
        inbox = []
        lock.unlock()
        for (fd, forward) in handed { startLink(forward: forward, fd: fd) }
        return !handed.isEmpty
    }

    func acceptRemote() throws(SSHError) -> Bool {
        var progress = false
        for index in forwards.indices {
            guard let listener = forwards[index].remoteListener else { continue }
            while pending == nil, let channel = libssh2_channel_forward_accept(listener) {
                progress = true
                let rule = forwards[index].rule
                if let member { member.balancer.add(member.index) }
                let started = ForwardSocket.startConnect(host: rule.targetHost, port: rule.targetPort)
                let fd: Int32
                switch started {
                case .success(let connecting): fd = connecting
                case .failure: fd = -1
                }
                let link = newLink(forward: index, fd: fd, start: .connecting(channel: channel))
                link.target = "\(rule.targetHost):\(rule.targetPort)"
                if case .failure(let error) = started { fail(link, error.message) }
            }
            let code = libssh2_session_last_errno(session.raw)
            if code != 0, code != LIBSSH2_ERROR_EAGAIN, isSessionLost(code) { throw lost() }
        }
        return progress
    }

    func newLink(forward: Int, fd: Int32, start: ForwardLink.Start) -> ForwardLink {
        nextLinkID += 1
        let link = ForwardLink(id: nextLinkID, forward: forward, fd: fd, start: start)
        links[link.id] = link
        forwards[forward].status.activeConnections += 1
        forwards[forward].status.totalConnections += 1
        return link
    }

    func retire(_ link: ForwardLink) {
        links[link.id] = nil
        forwards[link.forward].status.activeConnections -= 1
        if let member { member.balancer.release(member.index) }
    }
}
