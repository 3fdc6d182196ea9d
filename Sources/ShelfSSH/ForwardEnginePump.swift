// ForwardEngine's pump: one step of one link per pass — the SOCKS request, a -R connect, the data both ways with
// each direction's end, the refusal, and the close — moving the link only through its event methods.
import CLibSSH2
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfSystem

extension ForwardEngine {
    /// Applies one event to `link`. An invalid move is a fault of the engine, not of a peer: that connection fails
    /// (its status says why) and is given up, and the others and the process carry on.
    func move(_ link: ForwardLink, _ event: @autoclosure () throws(ForwardLink.InvalidMove) -> Void) {
        do throws(ForwardLink.InvalidMove) { try event() } catch {
            fail(link, "sshelf's forward engine made an invalid move (\(error)); the connection was closed")
            link.abandon()
        }
    }

    func step(_ link: ForwardLink) throws(SSHError) -> Bool {
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
    func stepRefusing(_ link: ForwardLink) -> Bool {
        let progress = flushToSocket(link)
        if link.toSocket.isEmpty || link.failed {
            move(link, try link.socketFinished())
            return true
        }
        return progress
    }

    func stepSocks(_ link: ForwardLink) -> Bool {
        var progress = flushToSocket(link)
        let room = link.toChannel.space
        let count = read(link.fd, room.baseAddress, min(room.count, 1024))
        if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) {
            move(link, try link.socketFinished())
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
            move(link, try link.refuse(reply: reply))
            noteFailure(link, "SOCKS request refused: \(reason)")
        case .connect(let target):
            move(link, try link.socksConnect(host: target.host, port: target.port))
            openQueue.append(link.id)
        }
        _ = flushToSocket(link)
        return progress
    }

    func stepConnecting(_ link: ForwardLink) -> Bool {
        guard !link.failed else {
            move(link, try link.close())
            return true
        }
        var pfd = pollfd(fd: link.fd, events: Int16(POLLOUT), revents: 0)
        guard poll(&pfd, 1, 0) == 1 else { return false }
        let code = ForwardSocket.finishConnect(link.fd)
        if code == 0 {
            move(link, try link.targetConnected())
        } else {
            fail(link, "could not connect to \(link.target): \(String(cString: strerror(code)))")
            move(link, try link.close())
        }
        return true
    }

    func stepOpen(_ link: ForwardLink) throws(SSHError) -> Bool {
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
            move(link, try link.close())
            progress = true
        }
        return progress
    }

    /// A failed link whose libssh2 call is half-done: repeat exactly that call, then close.
    func finishFailed(_ link: ForwardLink) throws(SSHError) -> Bool {
        link.closeSocket()
        guard let channel = link.channel, let op = pending, pendingBelongs(to: link) else {
            move(link, try link.close())
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
        move(link, try link.close())
        return true
    }

    func stepClosing(_ link: ForwardLink) throws(SSHError) -> Bool {
        link.closeSocket()
        guard let channel = link.channel else {
            move(link, try link.channelFreed())
            return true
        }
        guard may(.free(link.id)) else { return false }
        let answer = ChannelCall.free(channel)
        if answer == .wouldBlock {
            noteEAGAIN(.free(link.id))
            return false
        }
        settleDone(.free(link.id))
        move(link, try link.channelFreed())
        if isSessionLost(answer.code) { throw lost() }
        return true
    }

    func flushToSocket(_ link: ForwardLink) -> Bool {
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

    func fail(_ link: ForwardLink, _ reason: String) {
        guard link.fail() else { return }
        noteFailure(link, reason)
    }

    func noteFailure(_ link: ForwardLink, _ reason: String) {
        forwards[link.forward].status.failedConnections += 1
        forwards[link.forward].status.lastError = reason
        forwards[link.forward].status.lastErrorAt = Date()
    }
}
