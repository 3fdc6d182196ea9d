// Session: one libssh2 session over one socket — algorithm preferences (a host's own included), compression,
// handshake, the server's host key, the auth calls, keepalive (and when the server last answered) and disconnect.
// Every libssh2 return code is translated here, where it is called.
import CLibSSH2
import FoundationEssentials
import Glibc
import ShelfCore

final class Session {
    let raw: OpaquePointer
    let socket: Int32
    private let ownsSocket: Bool
    /// libssh2's `abstract` for this session: the keyboard-interactive responder and when the server last sent us a
    /// byte (through our receive callback, whatever the transport).
    let context = SessionContext()
    private var keepaliveSeconds: UInt32 = 30

    /// Algorithms in the order measured fastest on libssh2 1.10 (see ARCHITECTURE's speed facts).
    static let kexPreference = [
        "curve25519-sha256", "curve25519-sha256@libssh.org", "ecdh-sha2-nistp256", "ecdh-sha2-nistp384",
        "ecdh-sha2-nistp521", "diffie-hellman-group-exchange-sha256", "diffie-hellman-group16-sha512",
        "diffie-hellman-group18-sha512", "diffie-hellman-group14-sha256",
    ]
    static let hostKeyPreference = [
        "ssh-ed25519", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521", "ssh-rsa",
    ]
    static let cipherPreference = "aes128-ctr,aes192-ctr,aes256-ctr"
    static let macPreference = "hmac-sha2-256,hmac-sha2-512,hmac-sha1"

    init(socket: Int32, ownsSocket: Bool = true) throws(SSHError) {
        LibSSH2.initialiseOnce()
        guard
            let raw = libssh2_session_init_ex(
                allocateCallback, freeCallback, reallocateCallback, Unmanaged.passUnretained(context).toOpaque())
        else {
            if ownsSocket { close(socket) }
            throw SSHError(.handshakeFailed, "could not create an SSH session (libssh2 out of memory)")
        }
        self.raw = raw
        self.socket = socket
        self.ownsSocket = ownsSocket
        _ = libssh2_session_callback_set(
            raw, LIBSSH2_CALLBACK_RECV, unsafeBitCast(receiveCallback, to: UnsafeMutableRawPointer.self))
    }

    deinit {
        libssh2_session_free(raw)
        if ownsSocket { close(socket) }
    }

    /// Known host-key types first, so a host we know is verified against the key we hold; a host's own
    /// HostKeyAlgorithms, KexAlgorithms, Ciphers and MACs (OpenSSH's list syntax, limited to what libssh2 has)
    /// replace sshelf's order. A list that leaves nothing libssh2 can do is an error naming the option.
    func preferAlgorithms(knownHostKeyTypes: [String], settings: HostSettings = HostSettings()) throws(SSHError) {
        let hostKeys =
            knownHostKeyTypes.filter(Self.hostKeyPreference.contains)
            + Self.hostKeyPreference.filter { !knownHostKeyTypes.contains($0) }
        let kex = try AlgorithmList.resolve(
            settings.kexAlgorithms, option: "KexAlgorithms", defaults: Self.kexPreference,
            supported: supported(LIBSSH2_METHOD_KEX))
        let hostKey = try AlgorithmList.resolve(
            settings.hostKeyAlgorithms, option: "HostKeyAlgorithms", defaults: hostKeys,
            supported: supported(LIBSSH2_METHOD_HOSTKEY))
        let ciphers = try AlgorithmList.resolve(
            settings.ciphers, option: "Ciphers",
            defaults: Self.cipherPreference.split(separator: ",").map(String.init),
            supported: supported(LIBSSH2_METHOD_CRYPT_CS))
        let macs = try AlgorithmList.resolve(
            settings.macs, option: "MACs",
            defaults: Self.macPreference.split(separator: ",").map(String.init),
            supported: supported(LIBSSH2_METHOD_MAC_CS))
        _ = libssh2_session_method_pref(raw, LIBSSH2_METHOD_KEX, kex.joined(separator: ","))
        _ = libssh2_session_method_pref(raw, LIBSSH2_METHOD_HOSTKEY, hostKey.joined(separator: ","))
        for method in [LIBSSH2_METHOD_CRYPT_CS, LIBSSH2_METHOD_CRYPT_SC] {
            _ = libssh2_session_method_pref(raw, method, ciphers.joined(separator: ","))
        }
        for method in [LIBSSH2_METHOD_MAC_CS, LIBSSH2_METHOD_MAC_SC] {
            _ = libssh2_session_method_pref(raw, method, macs.joined(separator: ","))
        }
        if settings.compression {
            _ = libssh2_session_flag(raw, LIBSSH2_FLAG_COMPRESS, 1)
        }
    }

    /// The algorithms of one kind this libssh2 was built with.
    func supported(_ method: Int32) -> [String] {
        var list: UnsafeMutablePointer<UnsafePointer<CChar>?>? = nil
        let count = libssh2_session_supported_algs(raw, method, &list)
        guard count > 0, let list else { return [] }
        defer { libssh2_free(raw, list) }
        return (0..<Int(count)).compactMap { list[$0].map { String(cString: $0) } }
    }

    /// The ciphers the loaded libssh2 was built with (a session that never connects is asked).
    static func builtCiphers() -> [String] {
        (try? Session(socket: -1, ownsSocket: false))?.supported(LIBSSH2_METHOD_CRYPT_CS) ?? []
    }

    /// The algorithm libssh2 agreed on for `method` (after the handshake), for tests and messages.
    func negotiated(_ method: Int32) -> String? {
        libssh2_session_methods(raw, method).map { String(cString: $0) }
    }

    /// The key exchange the handshake agreed on.
    var keyExchange: String? { negotiated(LIBSSH2_METHOD_KEX) }

    func setTimeout(seconds: Double) { libssh2_session_set_timeout(raw, Int(seconds * 1000)) }

    func setBlocking(_ blocking: Bool) {
        libssh2_session_set_blocking(raw, blocking ? 1 : 0)
        isBlocking = blocking
    }

    /// Whether libssh2 calls wait (libssh2's default) or answer EAGAIN; kept here as set.
    private(set) var isBlocking = true

    func handshake(target: String) throws(SSHError) {
        let code = libssh2_session_handshake(raw, socket)
        guard code == 0 else {
            let timedOut = code == LIBSSH2_ERROR_TIMEOUT || code == LIBSSH2_ERROR_SOCKET_TIMEOUT
            let seconds = libssh2_session_get_timeout(raw) / 1000
            throw SSHError(
                timedOut ? .timedOut : .handshakeFailed,
                timedOut
                    ? "the SSH handshake with \(target) timed out (no answer within \(seconds) s)"
                    : "the SSH handshake with \(target) failed", library: lastError(),
                hint: code == LIBSSH2_ERROR_KEX_FAILURE
                    ? "the server offers no key exchange, cipher or host-key algorithm libssh2 1.10 supports"
                    : "is this an SSH server?")
        }
    }

    /// Keepalives after `interval` seconds without sending, set right after the login — asking for *no* reply.
    /// libssh2 sends one from any blocking wait and matches a global request's answer by its type alone, so a
    /// keepalive answered by sshd's REQUEST_FAILURE (sshd answers one sent during the login once the login is done)
    /// would be taken as the answer to a `-R` listen request that follows. And libssh2 keeps every such answer in the
    /// session's packet list for the session's life (only a `-R` listen request ever takes one out): a keeper or a
    /// supervisor asking every 15 s grew by about 230 KB a day. Where a loop judges the server by its answers
    /// (ServerAliveCountMax), it asks with `probe` instead, whose answer libssh2 reads and frees.
    func startKeepalives(interval: Int) {
        keepaliveSeconds = UInt32(max(1, interval))
        libssh2_keepalive_config(raw, 0, keepaliveSeconds)
    }

    /// From now on keepalives ask for a reply; for a command or shell whose loop judges the server by its answers
    /// (ServerAliveCountMax) while it runs, when no global request of ours can follow. Each answer stays in libssh2's
    /// packet list until the session ends (see `startKeepalives`): fine for a command, not for a held connection.
    func askKeepaliveReplies() {
        libssh2_keepalive_config(raw, 1, keepaliveSeconds)
    }

    /// The channel type of `probe`: no server has it, so every one refuses it (RFC 4254 5.1).
    static let probeChannelType = "alive@sshelf.invalid"

    /// What `probe` found.
    enum ProbeAnswer: Equatable {
        case answered
        /// Nothing came back within the timeout.
        case silent
        case lost(Int32)
    }

    /// Asks the server for an answer that libssh2 reads and frees, unlike a keepalive's reply: a channel open of a
    /// type no server has, which the server must refuse (RFC 4254 5.1: SSH_MSG_CHANNEL_OPEN_FAILURE; sshd logs it at
    /// debug level only) and which libssh2 matches to its open and frees. Waits up to `timeout` seconds (0: for
    /// ever) in blocking mode, then puts the session's mode back. Only between channel opens of ours: libssh2 keeps
    /// one open at a time per session.
    func probe(timeout: Double) -> ProbeAnswer {
        let wasBlocking = isBlocking
        setBlocking(true)
        setTimeout(seconds: timeout)
        defer {
            setTimeout(seconds: 0)
            setBlocking(wasBlocking)
        }
        let type = Self.probeChannelType
        if let channel = libssh2_channel_open_ex(raw, type, UInt32(type.utf8.count), 2048, 2048, nil, 0) {
            // A server that opened it anyway answered too; the channel is of no use.
            libssh2_channel_free(channel)
            return .answered
        }
        let code = libssh2_session_last_errno(raw)
        switch code {
        case LIBSSH2_ERROR_CHANNEL_FAILURE: return .answered
        case LIBSSH2_ERROR_TIMEOUT, LIBSSH2_ERROR_EAGAIN: return .silent
        default: return .lost(code)
        }
    }

    func hostKey() -> HostKey? {
        var length = 0
        var type: Int32 = 0
        guard let pointer = libssh2_session_hostkey(raw, &length, &type), length > 0 else { return nil }
        let bytes = UnsafeRawBufferPointer(start: pointer, count: length)
        return HostKey(blob: [UInt8](bytes))
    }

    func lastError() -> String {
        var message: UnsafeMutablePointer<CChar>? = nil
        var length: Int32 = 0
        _ = libssh2_session_last_error(raw, &message, &length, 0)
        guard let message else { return "" }
        return String(cString: message)
    }

    func lastErrorCode() -> Int32 { libssh2_session_last_errno(raw) }

    var isAuthenticated: Bool { libssh2_userauth_authenticated(raw) != 0 }

    /// The methods the server offers for `user`, or nil when the "none" request already logged us in.
    func offeredMethods(user: String) throws(SSHError) -> [String]? {
        let list = libssh2_userauth_list(raw, user, UInt32(user.utf8.count))
        guard let list else {
            if isAuthenticated { return nil }
            throw SSHError(
                .authenticationFailed, "the server did not list its authentication methods",
                library: lastError())
        }
        return String(cString: list).split(separator: ",").map(String.init)
    }

    /// The banner the server sent while it was asked for its methods (libssh2 1.11's libssh2_userauth_banner); nil
    /// when it sent none or the loaded libssh2 does not keep it.
    func userauthBanner() -> String? {
        guard let banner = LibSSH2.optional("libssh2_userauth_banner", as: sshelf_libssh2_userauth_banner.self) else {
            return nil
        }
        var text: UnsafeMutablePointer<CChar>? = nil
        guard banner(raw, &text) == 0, let text else { return nil }
        return String(cString: text)
    }

    func keepaliveTick() -> Int {
        var next: Int32 = 0
        _ = libssh2_keepalive_send(raw, &next)
        return Int(next)
    }

    /// Which way libssh2 is waiting: read, write or both (for poll()).
    var blockDirections: Int16 {
        let directions = libssh2_session_block_directions(raw)
        var events: Int16 = 0
        if directions & LIBSSH2_SESSION_BLOCK_INBOUND != 0 { events |= Int16(POLLIN) }
        if directions & LIBSSH2_SESSION_BLOCK_OUTBOUND != 0 { events |= Int16(POLLOUT) }
        return events
    }

    func disconnect(_ reason: String = "sshelf: closing") {
        setBlocking(true)
        setTimeout(seconds: 2)
        _ = libssh2_session_disconnect_ex(raw, SSH_DISCONNECT_BY_APPLICATION, reason, "")
    }
}

/// One prompt of a keyboard-interactive round, as the server sent it (untrusted text).
public struct KeyboardPrompt: Sendable {
    public var text: String
    public var echo: Bool

    public init(text: String, echo: Bool) {
        self.text = text
        self.echo = echo
    }
}

typealias KeyboardResponder = (_ name: String, _ instruction: String, _ prompts: [KeyboardPrompt]) -> [SecretBytes]?

/// What libssh2's callbacks reach through the session's `abstract` pointer (the session keeps it alive). The pointer
/// names this object for the session's whole life: every callback may take it for a SessionContext.
final class SessionContext {
    /// Where libssh2's sends go while a forward engine runs (its send callback reads it here).
    var sendBuffer: ForwardSendBuffer?
    /// Answers keyboard-interactive prompts while a login runs that method.
    var keyboard: KeyboardResponder?
    /// Signs for a certificate login while one runs.
    var signer: (([UInt8]) -> [UInt8]?)?
    /// When the server last sent a byte (CLOCK_MONOTONIC nanoseconds): a server that has stopped answering is
    /// told apart from a quiet one by its replies to keepalives.
    var lastReceived = SessionContext.now()
    /// Bytes received so far: a loop driving several channels tells by it whether a step read anything off the
    /// socket (SSHConnection.bytesReceived).
    var received: UInt64 = 0
    /// Memory blocks libssh2 holds for this session (its allocations less its frees): what a long-lived session's
    /// growth is measured by (KeepaliveMemoryTests).
    var heldBlocks = 0

    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Seconds since the server last sent anything.
    var silence: Double { Double(SessionContext.now() &- lastReceived) / 1e9 }
}

/// libssh2's own receive (recv, with -errno for errors as libssh2 expects), noting when bytes arrived and how many.
private let receiveCallback:
    @convention(c) (
        Int32, UnsafeMutableRawPointer?, Int, Int32, UnsafeMutablePointer<UnsafeMutableRawPointer?>?
    ) -> Int = { socket, buffer, length, flags, abstract in
        let count = recv(socket, buffer, length, flags)
        if count < 0 {
            let code = errno
            return code == ENOENT || code == EWOULDBLOCK ? -Int(EAGAIN) : -Int(code)
        }
        if count > 0, let pointer = abstract?.pointee {
            let context = Unmanaged<SessionContext>.fromOpaque(pointer).takeUnretainedValue()
            context.lastReceived = SessionContext.now()
            context.received &+= UInt64(count)
        }
        return count
    }

/// libssh2's allocator for a session: malloc, realloc and free, counting the blocks it holds (`heldBlocks`).
private func context(_ abstract: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> SessionContext? {
    abstract?.pointee.map { Unmanaged<SessionContext>.fromOpaque($0).takeUnretainedValue() }
}

private let allocateCallback:
    @convention(c) (Int, UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> UnsafeMutableRawPointer? = {
        size, abstract in
        guard let block = malloc(size) else { return nil }
        context(abstract)?.heldBlocks += 1
        return block
    }

private let reallocateCallback:
    @convention(c) (UnsafeMutableRawPointer?, Int, UnsafeMutablePointer<UnsafeMutableRawPointer?>?) ->
        UnsafeMutableRawPointer? = { block, size, abstract in
            guard let moved = realloc(block, size) else { return nil }
            if block == nil { context(abstract)?.heldBlocks += 1 }
            return moved
        }

private let freeCallback:
    @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?) ->
        Void = { block, abstract in
            guard let block else { return }
            context(abstract)?.heldBlocks -= 1
            free(block)
        }

private func text(_ pointer: UnsafePointer<CChar>?, _ length: Int32) -> String {
    guard let pointer, length > 0 else { return "" }
    return String(decoding: UnsafeRawBufferPointer(start: pointer, count: Int(length)), as: UTF8.self)
}

/// libssh2 frees each response with free(), so answers are copied into malloc'd memory.
let keyboardCallback:
    @convention(c) (
        UnsafePointer<CChar>?, Int32, UnsafePointer<CChar>?, Int32, Int32,
        UnsafePointer<LIBSSH2_USERAUTH_KBDINT_PROMPT>?, UnsafeMutablePointer<LIBSSH2_USERAUTH_KBDINT_RESPONSE>?,
        UnsafeMutablePointer<UnsafeMutableRawPointer?>?
    ) -> Void = { name, nameLength, instruction, instructionLength, count, prompts, responses, abstract in
        guard let pointer = abstract?.pointee, let responses, count >= 0,
            let respond = Unmanaged<SessionContext>.fromOpaque(pointer).takeUnretainedValue().keyboard
        else { return }
        var list: [KeyboardPrompt] = []
        for index in 0..<Int(count) {
            guard let prompt = prompts?[index] else { continue }
            let promptText = prompt.text.map { text(UnsafePointer($0), Int32(prompt.length)) } ?? ""
            list.append(KeyboardPrompt(text: promptText, echo: prompt.echo != 0))
        }
        let answers = respond(text(name, nameLength), text(instruction, instructionLength), list) ?? []
        for index in 0..<Int(count) {
            guard index < answers.count else {
                responses[index].text = nil
                responses[index].length = 0
                continue
            }
            let answer = answers[index]
            let memory = malloc(max(answer.count, 1))
            answer.withUnsafeBytes { bytes in
                if let memory, let base = bytes.baseAddress, bytes.count > 0 { memcpy(memory, base, bytes.count) }
            }
            responses[index].text = memory?.assumingMemoryBound(to: CChar.self)
            responses[index].length = memory == nil ? 0 : UInt32(answer.count)
        }
    }

/// libssh2 frees the signature with free(), so it is copied into malloc'd memory.
let signCallback:
    @convention(c) (
        OpaquePointer?, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?, UnsafeMutablePointer<Int>?,
        UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UnsafeMutableRawPointer?>?
    ) -> Int32 = { _, signature, signatureLength, data, dataLength, abstract in
        guard let pointer = abstract?.pointee, let signature, let signatureLength, let data,
            let sign = Unmanaged<SessionContext>.fromOpaque(pointer).takeUnretainedValue().signer,
            let made = sign(Array(UnsafeBufferPointer(start: data, count: dataLength))),
            let memory = malloc(max(made.count, 1))
        else { return -1 }
        made.withUnsafeBytes { bytes in if let base = bytes.baseAddress { memcpy(memory, base, bytes.count) } }
        signature.pointee = memory.assumingMemoryBound(to: UInt8.self)
        signatureLength.pointee = made.count
        return 0
    }
