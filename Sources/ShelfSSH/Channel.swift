// Channel: one libssh2 channel in non-blocking mode — reads and writes that say "would block" instead of
// waiting, so the poll loops can drain every channel until EAGAIN before they sleep.
import CLibSSH2
import FoundationEssentials
import Glibc

final class Channel {
    let raw: OpaquePointer
    unowned let session: Session
    private var termSent = false

    enum Read { case data(Int), wouldBlock, eof }

    init(raw: OpaquePointer, session: Session) {
        self.raw = raw
        self.session = session
    }

    deinit { libssh2_channel_free(raw) }

    /// Asks the server to run `command` on this channel (the "exec" request; blocking mode).
    func exec(_ command: String) throws(SSHError) {
        let request = "exec"
        guard
            libssh2_channel_process_startup(
                raw, request, UInt32(request.utf8.count), command, UInt32(command.utf8.count)) == 0
        else {
            throw SSHError(.channelFailed, "the server refused to run the command", library: session.lastError())
        }
    }

    /// Reads stdout (stream 0) or stderr (stream 1) into `buffer`.
    func read(stream: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SSHError) -> Read {
        let count = libssh2_channel_read_ex(
            raw, stream, buffer.baseAddress?.assumingMemoryBound(to: CChar.self),
            buffer.count)
        if count > 0 { return .data(count) }
        if count == Int(LIBSSH2_ERROR_EAGAIN) { return .wouldBlock }
        if count == 0 { return libssh2_channel_eof(raw) != 0 ? .eof : .wouldBlock }
        if count == Int(LIBSSH2_ERROR_CHANNEL_CLOSED) { return .eof }
        throw SSHError(.channelFailed, "reading from the channel failed", library: session.lastError())
    }

    /// Writes as much as the window allows; returns bytes taken (0 when it would block).
    func write(_ bytes: UnsafeRawBufferPointer, stream: Int32 = 0) throws(SSHError) -> Int {
        guard bytes.count > 0 else { return 0 }
        let count = libssh2_channel_write_ex(
            raw, stream, bytes.baseAddress?.assumingMemoryBound(to: CChar.self),
            bytes.count)
        if count >= 0 { return count }
        if count == Int(LIBSSH2_ERROR_EAGAIN) { return 0 }
        throw SSHError(.channelFailed, "writing to the channel failed", library: session.lastError())
    }

    /// Calls a libssh2 function until it stops saying EAGAIN (used for control requests in non-blocking mode).
    func retry(_ body: () -> Int32) -> Int32 {
        while true {
            let code = body()
            guard code == LIBSSH2_ERROR_EAGAIN else { return code }
            session.waitSocket(timeoutMs: 1000)
        }
    }

    func sendEOF() { _ = retry { libssh2_channel_send_eof(raw) } }

    /// The receive window: what the server may still send unasked (`open`) and the size asked for when the channel
    /// opened (`initial`) — what a test reads to see the window a session channel asks for.
    var receiveWindow: (open: UInt, initial: UInt) {
        var initial: UInt = 0
        let open = libssh2_channel_window_read_ex(raw, nil, &initial)
        return (UInt(open), initial)
    }

    func close() {
        _ = retry { libssh2_channel_close(raw) }
        _ = retry { libssh2_channel_wait_closed(raw) }
    }

    /// Stops the command on this channel: TERM first where the library can send signals (libssh2 1.11's
    /// libssh2_channel_signal_ex, looked up at run time), then the channel is closed — sshd then closes the command's
    /// stdin, stdout and stderr, so on 1.10 a command ends when it next writes (SIGPIPE) or reads its input (EOF).
    /// The server's close is not waited for (libssh2 drops it for a freed channel). False while that would block
    /// (call again).
    func stopCommand() -> Bool {
        if !termSent {
            if let send = LibSSH2.optional("libssh2_channel_signal_ex", as: sshelf_libssh2_channel_signal_ex.self) {
                guard send(raw, "TERM", 4) != LIBSSH2_ERROR_EAGAIN else { return false }
            }
            termSent = true
        }
        return libssh2_channel_close(raw) != LIBSSH2_ERROR_EAGAIN
    }

    /// The remote command's exit: its status, or the signal that ended it.
    func exit() -> RemoteExit {
        var signalName: UnsafeMutablePointer<CChar>? = nil
        var length = 0
        _ = libssh2_channel_get_exit_signal(raw, &signalName, &length, nil, nil, nil, nil)
        if let signalName, length > 0 {
            let name = String(decoding: UnsafeRawBufferPointer(start: signalName, count: length), as: UTF8.self)
            free(signalName)
            return .signal(UntrustedText.clean(name))
        }
        return .status(libssh2_channel_get_exit_status(raw))
    }
}

/// How a remote command or shell ended.
public enum RemoteExit: Sendable, Equatable {
    case status(Int32)
    case signal(String)
    /// We ended it: the `~.` escape, or a terminating signal to sshelf.
    case disconnected

    /// What sshelf exits with: the remote status, or 255 (as ssh does) when a signal or the user ended it.
    public var exitCode: Int32 {
        switch self {
        case .status(let code): code
        case .signal, .disconnected: 255
        }
    }
}

extension Session {
    /// A session channel's receive window: 2 MiB, OpenSSH's own (CHAN_SES_WINDOW_DEFAULT). libssh2 sends the
    /// adjust as the loop reads (each read of 256 KiB), so the server never waits for one; a deeper window only lets
    /// sshd read further ahead of a client slower than itself, and sshd pays for that: with 16 MiB it spent ten
    /// times ssh's CPU on the same 200 MB (its growing buffer reallocated, zeroed and faulted in again and again:
    /// 1.7 s against 0.17 s), on the cores the client needs (docs/PERFORMANCE.md, "A session's throughput").
    static let windowSize: UInt32 = 2 * 1024 * 1024
    static let packetSize: UInt32 = 32768

    /// Sleeps until the session's socket is ready in the direction libssh2 is waiting on.
    func waitSocket(timeoutMs: Int32) {
        var pfd = pollfd(fd: socket, events: blockDirections == 0 ? Int16(POLLIN) : blockDirections, revents: 0)
        _ = poll(&pfd, 1, timeoutMs)
    }

    /// Opens a session channel (blocking mode expected).
    func openSessionChannel() throws(SSHError) -> Channel {
        let type = "session"
        guard
            let raw = libssh2_channel_open_ex(
                raw, type, UInt32(type.utf8.count),
                Self.windowSize, Self.packetSize, nil, 0)
        else {
            throw SSHError(.channelFailed, "the server refused to open a session channel", library: lastError())
        }
        return Channel(raw: raw, session: self)
    }

    /// Opens a direct-tcpip channel to `host:port` as seen from the server (blocking mode expected).
    func openDirectTCPIP(host: String, port: Int) throws(SSHError) -> Channel {
        guard let raw = libssh2_channel_direct_tcpip_ex(raw, host, Int32(port), "127.0.0.1", 22) else {
            throw SSHError(
                .channelFailed,
                "the jump host could not open a connection to \(KnownHostsFile.lookupName(host: host, port: port))",
                library: lastError(),
                hint: "is the next hop reachable from the jump host, and does it allow TCP forwarding?")
        }
        return Channel(raw: raw, session: self)
    }
}

/// The forward engine's channel calls, non-blocking, each answer as the engine acts on it. The engine keeps raw
/// channels (not `Channel`): it frees them itself, repeating on EAGAIN, and repeats a half-done call exactly.
enum ChannelCall {
    enum Answer: Equatable {
        /// Bytes moved (read or written); 0 for a call that carries none (EOF sent, channel freed, nothing to read).
        case done(Int)
        /// libssh2 would block: repeat exactly this call when the session is ready.
        case wouldBlock
        /// read: the far side sent EOF.
        case eof
        /// read: the far side closed the channel.
        case closed
        /// A libssh2 error code (the engine asks the session whether it was lost).
        case failed(Int32)

        /// libssh2's return code: negative for `closed` and `failed`, else 0.
        var code: Int32 {
            switch self {
            case .failed(let code): code
            case .closed: LIBSSH2_ERROR_CHANNEL_CLOSED
            case .wouldBlock: LIBSSH2_ERROR_EAGAIN
            case .done, .eof: 0
            }
        }
    }

    static func read(_ channel: OpaquePointer, into buffer: UnsafeMutableRawBufferPointer) -> Answer {
        let count = libssh2_channel_read_ex(
            channel, 0, buffer.baseAddress?.assumingMemoryBound(to: CChar.self), buffer.count)
        if count > 0 { return .done(count) }
        if count == Int(LIBSSH2_ERROR_EAGAIN) { return .wouldBlock }
        if count == 0 { return libssh2_channel_eof(channel) != 0 ? .eof : .done(0) }
        if count == Int(LIBSSH2_ERROR_CHANNEL_CLOSED) { return .closed }
        return .failed(Int32(count))
    }

    /// One write sends at most one packet; a full window is `wouldBlock`.
    static func write(_ channel: OpaquePointer, _ bytes: UnsafeRawBufferPointer) -> Answer {
        let count = libssh2_channel_write_ex(
            channel, 0, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count)
        if count > 0 { return .done(count) }
        if count == Int(LIBSSH2_ERROR_EAGAIN) || count == 0 { return .wouldBlock }
        return .failed(Int32(count))
    }

    static func sendEOF(_ channel: OpaquePointer) -> Answer { answer(libssh2_channel_send_eof(channel)) }

    static func free(_ channel: OpaquePointer) -> Answer { answer(libssh2_channel_free(channel)) }

    /// Opens a `direct-tcpip` channel with `message` (ForwardLink.directTCPIPMessage): the channel, or why not now.
    static func openDirectTCPIP(_ session: Session, message: [UInt8], window: UInt32, packet: UInt32)
        -> Result<OpaquePointer, OpenRefusal>
    {
        let type = "direct-tcpip"
        let channel = message.withUnsafeBufferPointer { bytes in
            bytes.baseAddress!.withMemoryRebound(to: CChar.self, capacity: bytes.count) { pointer in
                libssh2_channel_open_ex(
                    session.raw, type, UInt32(type.utf8.count), window, packet, pointer,
                    UInt32(bytes.count))
            }
        }
        if let channel { return .success(channel) }
        let code = libssh2_session_last_errno(session.raw)
        return .failure(code == LIBSSH2_ERROR_EAGAIN ? .wouldBlock : .failed(code))
    }

    /// Opens a `direct-streamlocal@openssh.com` channel to the unix socket `path` on the server through libssh2
    /// 1.11's function (SocketForwardSupport refuses such a rule before, when the loaded library lacks it). Repeated
    /// after EAGAIN with the same path, as libssh2 wants.
    static func openDirectStreamlocal(_ session: Session, path: String) -> Result<OpaquePointer, OpenRefusal> {
        guard
            let open = LibSSH2.optional(
                "libssh2_channel_direct_streamlocal_ex", as: sshelf_libssh2_channel_direct_streamlocal_ex.self)
        else { return .failure(.failed(LIBSSH2_ERROR_METHOD_NOT_SUPPORTED)) }
        if let channel = open(session.raw, path, "127.0.0.1", 0) { return .success(channel) }
        let code = libssh2_session_last_errno(session.raw)
        return .failure(code == LIBSSH2_ERROR_EAGAIN ? .wouldBlock : .failed(code))
    }

    enum OpenRefusal: Error, Equatable {
        case wouldBlock
        case failed(Int32)
    }

    private static func answer(_ code: Int32) -> Answer {
        code == LIBSSH2_ERROR_EAGAIN ? .wouldBlock : code < 0 ? .failed(code) : .done(0)
    }
}
