// JumpBridge: carries an inner SSH session through a direct-tcpip channel of the outer one. The inner session
// talks to one end of a socketpair; a thread pumps bytes between the other end and the channel. From the moment
// the bridge starts, only its thread touches the outer session. The first bytes the inner server sends (its version
// line and first KEXINIT, in the clear) are kept, so a failed handshake can say what the server offered.
import CLibSSH2
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfSystem

final class JumpBridge: @unchecked Sendable {
    let outer: Session
    let channel: Channel
    /// Our end of the socketpair; the inner session owns the other.
    private let pumpEnd: Int32
    let innerEnd: Int32
    private let stopPipe: (read: Int32, write: Int32)
    private var thread: JoinableThread?
    private var stopped = false
    private let keepaliveInterval: Int
    private let firstLock = Lock()
    private var first: [UInt8] = []
    /// Up to this many of the server's first bytes are kept: its lines before the version, the version, a KEXINIT.
    static let firstLimit = 65_536

    /// The server's first bytes through the channel (what libssh2's handshake read).
    var serverFirstBytes: [UInt8] {
        firstLock.lock()
        defer { firstLock.unlock() }
        return first
    }

    init(outer: Session, channel: Channel, keepaliveInterval: Int) throws(SSHError) {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw SSHError(.network, "could not create the jump-host bridge: \(String(cString: strerror(errno)))")
        }
        var pipeFDs: [Int32] = [-1, -1]
        guard CloseOnExec.pipe(&pipeFDs) == 0 else {
            close(pair[0])
            close(pair[1])
            throw SSHError(.network, "could not create the jump-host bridge: \(String(cString: strerror(errno)))")
        }
        self.outer = outer
        self.channel = channel
        self.pumpEnd = pair[0]
        self.innerEnd = pair[1]
        self.stopPipe = (pipeFDs[0], pipeFDs[1])
        self.keepaliveInterval = keepaliveInterval
    }

    func start() {
        thread = JoinableThread { [self] in pump() }
    }

    /// Stops the pump (after the inner session has disconnected) and waits for its thread to let go.
    func stop() {
        guard !stopped else { return }
        stopped = true
        var byte: UInt8 = 1
        _ = write(stopPipe.write, &byte, 1)
        thread?.join()
        thread = nil
        close(pumpEnd)
        close(stopPipe.read)
        close(stopPipe.write)
    }

    /// Before the bytes go on to the inner session, so they are here by the time its handshake has read them.
    private func keepFirst(_ bytes: UnsafeRawBufferPointer) {
        firstLock.lock()
        defer { firstLock.unlock() }
        guard first.count < Self.firstLimit else { return }
        first += bytes.prefix(Self.firstLimit - first.count)
    }

    private func pump() {
        outer.setBlocking(false)
        _ = fcntl(pumpEnd, F_SETFL, fcntl(pumpEnd, F_GETFL) | O_NONBLOCK)
        let size = 256 * 1024
        let fromChannel = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 1)
        let fromSocket = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 1)
        defer {
            fromChannel.deallocate()
            fromSocket.deallocate()
        }
        var channelPending = 0..<0  // bytes read from the channel, not yet written to the socket
        var socketPending = 0..<0  // bytes read from the socket, not yet written to the channel
        var socketOpen = true, channelOpen = true
        var lastKeepalive = Date()
        do {
            while socketOpen || !socketPending.isEmpty {
                var progress = false
                // Drain the channel until EAGAIN before sleeping: data left inside libssh2 would never wake poll().
                if channelPending.isEmpty && channelOpen {
                    switch try channel.read(stream: 0, into: fromChannel) {
                    case .data(let count):
                        channelPending = 0..<count
                        keepFirst(UnsafeRawBufferPointer(rebasing: fromChannel[0..<count]))
                        progress = true
                    case .wouldBlock: break
                    case .eof:
                        channelOpen = false
                        shutdown(pumpEnd, Int32(SHUT_WR))
                    }
                }
                if !channelPending.isEmpty {
                    let written = Glibc.write(
                        pumpEnd, fromChannel.baseAddress! + channelPending.lowerBound, channelPending.count)
                    if written > 0 {
                        channelPending = channelPending.lowerBound + written..<channelPending.upperBound
                        progress = true
                    } else if written < 0 && errno != EAGAIN && errno != EINTR {
                        break
                    }
                }
                if socketPending.isEmpty && socketOpen {
                    let count = Glibc.read(pumpEnd, fromSocket.baseAddress!, size)
                    if count > 0 {
                        socketPending = 0..<count
                        progress = true
                    } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
                        socketOpen = false
                    }
                }
                if !socketPending.isEmpty {
                    let written = try channel.write(
                        UnsafeRawBufferPointer(rebasing: fromSocket[socketPending]))
                    if written > 0 {
                        socketPending = socketPending.lowerBound + written..<socketPending.upperBound
                        progress = true
                    }
                }
                if progress { continue }
                if Date().timeIntervalSince(lastKeepalive) > Double(keepaliveInterval) {
                    _ = outer.keepaliveTick()
                    lastKeepalive = Date()
                }
                var fds = [
                    pollfd(
                        fd: pumpEnd,
                        events: Int16(socketPending.isEmpty && socketOpen ? POLLIN : 0)
                            | Int16(channelPending.isEmpty ? 0 : POLLOUT), revents: 0),
                    pollfd(fd: outer.socket, events: outer.blockDirections | Int16(POLLIN), revents: 0),
                    pollfd(fd: stopPipe.read, events: Int16(POLLIN), revents: 0),
                ]
                _ = poll(&fds, 3, Int32(keepaliveInterval * 1000))
                if fds[2].revents != 0 { break }
            }
        } catch {
            // The inner session sees its socket close and reports the failure in its own words.
        }
        shutdown(pumpEnd, Int32(SHUT_RDWR))
        channel.close()
    }
}
