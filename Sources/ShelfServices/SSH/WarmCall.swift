// WarmCall: one caller's command in a warm keeper — its channel, its stdin relay and the frames its socket has not
// taken yet — moved along by the keeper's loop a step at a time without ever waiting, so callers run side by side
// and a caller that goes away (Ctrl-C, killed) has its command stopped instead of left running.
import FoundationEssentials
import Glibc
import ShelfSSH
import ShelfSystem

final class WarmCall {
    let client: Int32
    private let command: SessionCommand
    private let relay: StdinRelay?
    /// The caller's stdin descriptor the relay reads, closed with the call.
    private let lent: Int32?
    /// Frames for the caller, sent as its socket takes them; output is not read while this is full, so a slow
    /// caller holds back its own command (the channel's window), never the others.
    private var outgoing: [UInt8] = []
    private var input: [UInt8] = []
    private var inputEnded = false
    private var inputDone: Bool
    private(set) var callerGone = false
    private var state = State.running

    private enum State { case running, finishing, stopping, done }
    private static let outgoingLimit = 256 * 1024

    init(client: Int32, command: SessionCommand, relay: StdinRelay?, lent: Int32?) {
        self.client = client
        self.command = command
        self.relay = relay
        self.lent = lent
        // Without a relay (exec -n, stdin /dev/null, a fleet run) the input has ended already: only its EOF is sent.
        inputDone = false
        inputEnded = relay == nil
        if let relay { _ = fcntl(relay.output, F_SETFL, fcntl(relay.output, F_GETFL) | O_NONBLOCK) }
    }

    /// Its command has ended and the caller has everything (or has gone).
    var isOver: Bool { state == .done && (outgoing.isEmpty || callerGone) }

    /// Whether it takes output from the session now (the loop polls the session for reading only then).
    var readsOutput: Bool { state == .running && outgoing.count < Self.outgoingLimit }

    /// Does what can be done now; true when something moved. A throw means the session broke.
    func step(_ buffer: UnsafeMutableRawBufferPointer) throws(SSHError) -> Bool {
        var moved = false
        switch state {
        case .running:
            reading: while readsOutput {
                switch try command.read(into: buffer) {
                case .stdout(let count): queue(.stdout, UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                case .stderr(let count): queue(.stderr, UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                case .wouldBlock: break reading
                case .eof:
                    state = .finishing
                    moved = true
                    break reading
                }
                moved = true
            }
            if try feedInput() { moved = true }
        case .finishing:
            if let exit = command.finish() {
                queue(.exit, WarmSocket.int32Bytes(exit.exitCode))
                state = .done
                moved = true
            }
        case .stopping:
            if command.stop() {
                state = .done
                moved = true
            }
        case .done:
            break
        }
        if flush() { moved = true }
        return moved
    }

    /// Adds the descriptors this call waits on: its caller's socket (readable only when it leaves; writable when
    /// frames wait) and the stdin relay's pipe while input is wanted.
    func addPollRequests(to fds: inout [pollfd]) {
        fds.append(pollfd(fd: client, events: Int16(POLLIN) | (outgoing.isEmpty ? 0 : Int16(POLLOUT)), revents: 0))
        if state == .running, !inputDone, !inputEnded, input.isEmpty, let relay {
            fds.append(pollfd(fd: relay.output, events: Int16(POLLIN), revents: 0))
        }
    }

    /// After poll: a caller's socket that became readable has closed (callers send nothing after their request).
    func noticeCaller(_ revents: Int16) {
        guard revents != 0, !callerGone else { return }
        var byte: UInt8 = 0
        let peeked = recv(client, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT))
        if peeked == 0 || (peeked < 0 && errno != EAGAIN && errno != EINTR) { leave() }
    }

    /// The caller went away: its command is stopped unless it has ended already.
    private func leave() {
        callerGone = true
        outgoing.removeAll()
        if state == .running { state = .stopping }
    }

    /// The keeper is going away (`warm stop`, a broken session, a server that stopped answering): stop the command
    /// if it can, and tell the caller once whatever it was sent has reached it — always the error, never "fall
    /// back": the command was started on the host, and a caller that connected on its own would run it twice.
    func abandon(_ message: String, sessionAlive: Bool) {
        if sessionAlive && (state == .running || state == .stopping) { _ = command.stop() }
        state = .done
        guard !callerGone else { return }
        queue(.error, Array(message.utf8))
        PrivateSocket.setTimeout(client, seconds: 2, option: SO_SNDTIMEO)
        _ = outgoing.withUnsafeBytes { WarmSocket.sendAll(client, $0, passing: nil) }
        outgoing.removeAll()
    }

    /// Ends the call: the relay stops, the caller's socket closes.
    func close() {
        relay?.finish()
        if let lent { Glibc.close(lent) }
        Glibc.close(client)
    }

    private func queue(_ type: WarmSocket.Frame, _ bytes: UnsafeRawBufferPointer) {
        guard !callerGone else { return }
        outgoing += WarmSocket.frameHeader(type, length: bytes.count)
        outgoing += bytes
    }

    private func queue(_ type: WarmSocket.Frame, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { queue(type, $0) }
    }

    private func flush() -> Bool {
        guard !outgoing.isEmpty, !callerGone else { return false }
        let sent = outgoing.withUnsafeBytes {
            send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
        }
        if sent > 0 {
            outgoing.removeFirst(sent)
            return true
        }
        if sent < 0 && errno != EAGAIN && errno != EINTR { leave() }
        return false
    }

    /// The caller's stdin (through the relay) into the channel, then EOF once it ends.
    private func feedInput() throws(SSHError) -> Bool {
        guard !inputDone else { return false }
        var moved = false
        if input.isEmpty && !inputEnded, let relay {
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            let count = chunk.withUnsafeMutableBytes { read(relay.output, $0.baseAddress, $0.count) }
            if count > 0 {
                input = Array(chunk[0..<count])
                moved = true
            } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
                inputEnded = true
            }
        }
        if !input.isEmpty {
            var failure: SSHError? = nil
            let written = input.withUnsafeBytes { bytes in
                do throws(SSHError) { return try command.write(bytes) } catch {
                    failure = error
                    return 0
                }
            }
            if let failure { throw failure }
            if written > 0 {
                input.removeFirst(written)
                moved = true
            }
        }
        if inputEnded && input.isEmpty && command.sendEOF() {
            inputDone = true
            moved = true
        }
        return moved
    }
}
