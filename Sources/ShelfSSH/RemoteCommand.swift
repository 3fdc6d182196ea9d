// RemoteCommand: `exec` on a connection — stdout and stderr delivered apart as they arrive (nothing buffered
// whole), stdin forwarded from a descriptor, and the remote exit status returned.
import CLibSSH2
import FoundationEssentials
import Glibc
import ShelfCore

extension SSHConnection {
    /// Runs `command` on the target. `stdout`/`stderr` receive each chunk as it arrives; `input` (if given) is
    /// read until EOF and sent as the command's stdin; without it the command's stdin is at its end from the start.
    /// With `terminal` (a TERM value) the command gets a PTY, as `RequestTTY yes|force` asks (the local terminal,
    /// when `input` is one, goes to raw mode meanwhile). `passInterrupts` (the CLI's exec, in the foreground) catches
    /// SIGINT while the command runs and passes it on, where the library can. Another thread's `abort()` while the
    /// command runs stops it (TERM where the library can, then the channel closed) and throws `.cancelled`.
    public func exec(
        _ command: String, input: Int32? = nil, terminal: String? = nil, passInterrupts: Bool = false,
        stdout: (UnsafeRawBufferPointer) -> Void,
        stderr: (UnsafeRawBufferPointer) -> Void
    ) throws(SSHError) -> RemoteExit {
        let session = target
        session.setBlocking(true)
        let channel = try session.openSessionChannel()
        sendEnvironment(channel)
        var raw: RawTerminal? = nil
        if let terminal {
            let size = input.flatMap(TerminalSize.current) ?? TerminalSize(rows: 24, columns: 80)
            guard
                libssh2_channel_request_pty_ex(
                    channel.raw, terminal, UInt32(terminal.utf8.count), "", 0,
                    Int32(size.columns), Int32(size.rows), 0, 0) == 0
            else { throw SSHError(.channelFailed, "the server refused a terminal (PTY)", library: session.lastError()) }
            if let input { raw = RawTerminal(input) }
        }
        defer { raw?.restore() }
        try channel.exec(command)
        // No input (exec -n, a fleet run): the command's stdin ends at once, as `ssh -n` gives it /dev/null — one
        // that reads it (`wc -c`, a prompt) must not wait for ever.
        if input == nil { channel.sendEOF() }
        // Without a PTY, Ctrl-C is a signal to sshelf: where libssh2 can send signals (1.11), the first SIGINT goes to
        // the remote command as INT (it may clean up and say how it ended); a second one ends sshelf's side. With a
        // PTY the terminal is raw and Ctrl-C is a byte the remote terminal turns into SIGINT itself.
        let sendSignal =
            terminal == nil && passInterrupts
            ? LibSSH2.optional("libssh2_channel_signal_ex", as: sshelf_libssh2_channel_signal_ex.self) : nil
        let interrupts = sendSignal == nil ? nil : try ShellSignals([SIGINT])
        defer { interrupts?.restore() }
        session.setBlocking(false)
        defer { session.setBlocking(true) }
        var pump = ChannelPump(
            session: session, channel: channel, input: input,
            liveness: Liveness(targetSettings, host: targetName))
        pump.wakeFD = interrupts?.readFD
        // Another thread's abort() (a fleet run's second Ctrl-C, its command timeout) is a stop this loop carries out.
        pump.stopFD = commandStop.listen()
        defer { commandStop.stopListening() }
        var passedOn = 0
        if pump.stopFD != nil {
            try pump.run(
                stdout: stdout, stderr: stderr,
                onWake: {
                    for _ in interrupts?.drain() ?? [] {
                        passedOn += 1
                        if passedOn > 1 { return false }
                        _ = channel.retry { sendSignal?(channel.raw, "INT", 3) ?? 0 }
                    }
                    return true
                })
        }
        if pump.stopFD == nil || pump.stopped {
            // A stop comes from abort() (a fleet run's second Ctrl-C or Esc, its command timeout), and the connection
            // is dropped right after: TERM (where the library can) and the close are sent, as a warm keeper stops
            // the command of a caller that left, but the server's close is not waited for. sshd answers a close only
            // once the command has ended — on libssh2 1.10 (no TERM) not before its next write — so waiting cost two
            // 2 s timeouts a host (the close, then the channel's free closing again) before the run could end.
            _ = channel.stopCommand()
            for hop in sessions { shutdown(hop.socket, Int32(SHUT_RDWR)) }
            session.setBlocking(true)
            throw SSHError(.cancelled, "the command was stopped")
        }
        session.setBlocking(true)
        if passedOn > 1 {
            session.setTimeout(seconds: 2)
            channel.close()
            return .disconnected
        }
        channel.close()
        return channel.exit()
    }
}

/// The poll loop shared by exec and the shell: drain both streams until EAGAIN, forward input, then sleep in
/// poll() on whatever libssh2 and the input are waiting for.
struct ChannelPump {
    let session: Session
    let channel: Channel
    var input: Int32?
    var inputPending: [UInt8] = []
    var inputDone = false
    /// Extra descriptor to watch (the shell's signal pipe); `onWake` is called when it fires.
    var wakeFD: Int32? = nil
    /// Readable when another thread asks for the command to be stopped: `run` returns with `stopped` set.
    var stopFD: Int32? = nil
    private(set) var stopped = false
    /// Rounds that moved no stream's bytes but took some off the socket, so read again instead of sleeping.
    private(set) var pollSkips = 0
    /// Polls that ended with nothing ready (the liveness interval passed).
    private(set) var idleTimeouts = 0
    /// Called after stdout was read to its end and before stderr is (tests: make the server's next packets arrive
    /// in between, which otherwise happens only by chance).
    var betweenStreams: (() -> Void)? = nil
    var lastKeepalive = Date()
    let liveness: Liveness

    init(session: Session, channel: Channel, input: Int32?, liveness: Liveness = Liveness()) {
        self.session = session
        self.channel = channel
        self.input = input
        self.inputDone = input == nil
        self.liveness = liveness
    }

    /// Returns when the remote side closed (or `filterInput`/`onWake` ask to stop by returning false).
    mutating func run(
        stdout: (UnsafeRawBufferPointer) -> Void, stderr: (UnsafeRawBufferPointer) -> Void,
        filterInput: ((ArraySlice<UInt8>) -> (forward: [UInt8], keepGoing: Bool))? = nil,
        onWake: (() -> Bool)? = nil
    ) throws(SSHError) {
        let size = 256 * 1024
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 1)
        defer { buffer.deallocate() }
        var inputBuffer = [UInt8](repeating: 0, count: 64 * 1024)
        // Only a loop that judges the server by its answers asks for them (libssh2 keeps each one: see
        // Session.startKeepalives).
        if liveness.deadAfter != nil { session.askKeepaliveReplies() }
        while true {
            var progress = false
            var outEOF = false
            let receivedBefore = session.context.received
            // stdout then stderr, each until it would block.
            readLoop: while true {
                switch try channel.read(stream: 0, into: buffer) {
                case .data(let count):
                    stdout(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                    progress = true
                case .wouldBlock: break readLoop
                case .eof:
                    outEOF = true
                    break readLoop
                }
            }
            betweenStreams?()
            errLoop: while true {
                switch try channel.read(stream: Int32(SSH_EXTENDED_DATA_STDERR), into: buffer) {
                case .data(let count):
                    stderr(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                    progress = true
                case .wouldBlock, .eof: break errLoop
                }
            }
            if outEOF && !progress { return }
            // Every read first takes in all the socket has, for either stream: stdout's packets that arrived while
            // stderr was read sit inside libssh2, and the socket does not announce them again. Read again before
            // sleeping, or poll() waits for bytes the server may never send (a window it has used up, a command that
            // has ended): a 200 MB `cat` stalled twice for the whole poll timeout (30 s).
            if !progress && session.context.received != receivedBefore {
                pollSkips += 1
                continue
            }
            if !inputPending.isEmpty {
                var written = 0
                var failure: SSHError? = nil
                inputPending.withUnsafeBytes { bytes in
                    do throws(SSHError) { written = try channel.write(bytes) } catch { failure = error }
                }
                if let failure { throw failure }
                if written > 0 {
                    inputPending.removeFirst(written)
                    progress = true
                }
            }
            if progress {
                // A command that never pauses its output must still be stoppable.
                if let stopFD, Self.readable(stopFD) {
                    stopped = true
                    return
                }
                continue
            }
            try liveness.check(session)
            if Date().timeIntervalSince(lastKeepalive) >= Double(liveness.interval) {
                _ = session.keepaliveTick()
                lastKeepalive = Date()
            }
            var fds = [pollfd(fd: session.socket, events: session.blockDirections | Int16(POLLIN), revents: 0)]
            let watchInput = !inputDone && inputPending.isEmpty
            if watchInput, let input { fds.append(pollfd(fd: input, events: Int16(POLLIN), revents: 0)) }
            if let wakeFD { fds.append(pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)) }
            if let stopFD { fds.append(pollfd(fd: stopFD, events: Int16(POLLIN), revents: 0)) }
            let ready = poll(&fds, nfds_t(fds.count), Int32(min(liveness.interval, 30) * 1000))
            if ready < 0 && errno != EINTR {
                throw SSHError(.network, "waiting for the connection failed: \(String(cString: strerror(errno)))")
            }
            if ready == 0 { idleTimeouts += 1 }
            if let stopFD, fds.contains(where: { $0.fd == stopFD && $0.revents != 0 }) {
                stopped = true
                return
            }
            if stopFD != nil { fds.removeLast() }
            if let wakeFD, let last = fds.last, last.fd == wakeFD, last.revents != 0, let onWake {
                if !onWake() { return }
            }
            if watchInput, let input, fds.count > 1, fds[1].fd == input, fds[1].revents != 0 {
                let count = inputBuffer.withUnsafeMutableBytes { Glibc.read(input, $0.baseAddress!, $0.count) }
                if count > 0 {
                    if let filterInput {
                        let (forward, keepGoing) = filterInput(inputBuffer[0..<count])
                        inputPending += forward
                        if !keepGoing { return }
                    } else {
                        inputPending += inputBuffer[0..<count]
                    }
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    inputDone = true
                    channel.sendEOF()
                }
            }
        }
    }

    private static func readable(_ fd: Int32) -> Bool {
        var check = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&check, 1, 0) > 0
    }
}

extension SSHConnection {
    /// SetEnv's variables and SendEnv's local ones, offered before the command or shell starts; a server that does
    /// not accept one (sshd's AcceptEnv) refuses it quietly, as with ssh.
    func sendEnvironment(_ channel: Channel) {
        var variables = targetSettings.setEnv
        let positive = targetSettings.sendEnv.filter { !$0.hasPrefix("-") }
        let negative = targetSettings.sendEnv.filter { $0.hasPrefix("-") }.map { String($0.dropFirst()) }
        if !positive.isEmpty {
            for (name, value) in ProcessInfo.processInfo.environment.sorted(by: { $0.key < $1.key })
            where positive.contains(where: { SSHConfigResolver.glob($0, name) })
                && !negative.contains(where: { SSHConfigResolver.glob($0, name) })
                && !variables.contains(where: { $0.name == name })
            {
                variables.append((name, value))
            }
        }
        for (name, value) in variables {
            _ = libssh2_channel_setenv_ex(channel.raw, name, UInt32(name.utf8.count), value, UInt32(value.utf8.count))
        }
    }
}
