// WarmKeeper: the background process behind `exec --persist` — logs in once without asking anything (vault,
// agent, key file only), then serves exec requests from our own uid over a 0600 unix socket, one channel each,
// until it has been idle for its time (WarmIdle), is told to stop, or its socket was replaced.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfOperations
import ShelfSSH
import ShelfStore
import ShelfSystem

enum WarmKeeper {
    /// Runs the keeper in this process. `ready` (a pipe from the spawning `exec`) gets "ready\n" or the reason the
    /// login failed, and is closed; from then on the keeper talks only through its socket. Without `ready`, a
    /// failure is thrown, so it is printed like any command's.
    static func serve(_ plan: ConnectPlan, store: Store, options: ConnectOptions, idle: Int, ready: Int32?,
                      context: AppContext) throws -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        let connection: SSHConnection
        let listener: Int32
        let inode: ino_t
        let path = WarmSocket.path(context.locations, host: plan.target.id)
        do {
            connection = try login(plan, store: store, options: options, context: context)
            do {
                (listener, inode) = try PrivateSocket.listen(at: path, directory: WarmSocket.directory(context.locations))
            } catch {
                connection.close()
                throw error
            }
        } catch {
            guard ready != nil else { throw error }
            let failure = ShelfError(from: error)
            tell(ready, "error: " + failure.message)
            return failure.exitCode
        }
        defer { connection.close() }
        try? ConnectPlan.record(connection.outcome, target: plan.target.id, store: store)

        defer {
            close(listener)
            if PrivateSocket.ownsPath(path, inode: inode) { unlink(path) }
        }
        tell(ready, "ready")

        let fingerprint = WarmSocket.fingerprint(plan.endpoints)
        var idleness = WarmIdle(idle: .seconds(idle))
        while true {
            if idleness.expired { return 0 }
            let wait = idleness.wait(keepalive: .seconds(max(1, connection.keepAlive())))
            var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
            let count = poll(&fds, 1, WarmIdle.milliseconds(wait))
            // Another keeper for this host took the path over (or someone removed it): nobody can reach us.
            guard PrivateSocket.ownsPath(path, inode: inode) else { return 0 }
            guard count > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            defer { close(client) }
            guard PrivateSocket.peerIsUs(client) else { continue }
            switch handle(client, connection: connection, fingerprint: fingerprint) {
            case .served: idleness.used()
            case .stop: return 0
            }
        }
    }

    /// The credential source (and the vault it opened, with its keys) lives only for the login: afterwards the
    /// keeper holds the session and nothing secret.
    private static func login(_ plan: ConnectPlan, store: Store, options: ConnectOptions, context: AppContext) throws(SSHError)
        -> SSHConnection
    {
        let source = VaultCredentialSource(workspace: context.workspace, store: store, releasedBy: "exec", askPassphrase: nil)
        return try plan.connect(SSHConnector(options: options, credentials: source, delegate: UnattendedPrompts()), store: store)
    }

    private enum Next { case served, stop }

    private static func handle(_ client: Int32, connection: SSHConnection, fingerprint: [UInt8]) -> Next {
        // A client that connects and says nothing must not hold the keeper.
        PrivateSocket.setTimeout(client, seconds: 5, option: SO_RCVTIMEO)
        var reader = WarmSocket.Reader(client)
        let request = reader.next()
        defer { for fd in reader.received { close(fd) } }
        guard let (type, payload) = request else { return .served }
        switch type {
        case .stop:
            WarmSocket.send(client, .ok)
            return .stop
        case .exec:
            guard payload.count >= 33 else { return .served }
            guard Array(payload[0..<32]) == fingerprint else {
                WarmSocket.send(client, .fallback, Array("the host record changed since this session logged in".utf8))
                return .stop
            }
            let input = payload[32] & WarmSocket.stdinFlag != 0 ? reader.received.first : nil
            let command = String(decoding: payload[33...], as: UTF8.self)
            return run(command, input: input, client: client, connection: connection)
        default:
            return .served
        }
    }

    private static func run(_ command: String, input: Int32?, client: Int32, connection: SSHConnection) -> Next {
        var sentOutput = false
        var clientGone = false
        func forward(_ type: WarmSocket.Frame, _ bytes: UnsafeRawBufferPointer) {
            guard !clientGone else { return }
            sentOutput = true
            if !WarmSocket.send(client, type, bytes) { clientGone = true }
        }
        let relay = input.flatMap { StdinRelay(client: client, input: $0) }
        defer { relay?.finish() }
        do {
            let exit = try connection.exec(command, input: relay?.output, stdout: { forward(.stdout, $0) },
                                           stderr: { forward(.stderr, $0) })
            WarmSocket.send(client, .exit, WarmSocket.int32Bytes(exit.exitCode))
            return .served
        } catch {
            // The session is gone; with nothing sent yet the client connects on its own instead.
            let text = Array(("the warm session failed: " + error.message).utf8)
            WarmSocket.send(client, sentOutput ? .error : .fallback, text)
            return .stop
        }
    }

    private static func tell(_ fd: Int32?, _ line: String) {
        guard let fd else { return }
        let bytes = Array((Display.safe(line) + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }
}

/// The caller's stdin as the command sees it: a relay thread copies the lent descriptor into a pipe and closes the
/// pipe when the input ends or the caller goes away (Ctrl-C), so the command gets EOF at once and the keeper never
/// keeps reading the caller's terminal or pipe after it left.
private final class StdinRelay {
    /// What the channel pump reads.
    let output: Int32
    private let stop: [Int32]
    private var thread: JoinableThread?

    init?(client: Int32, input: Int32) {
        var data: [Int32] = [-1, -1], wake: [Int32] = [-1, -1]
        guard pipe(&data) == 0 else { return nil }
        guard pipe(&wake) == 0 else {
            close(data[0])
            close(data[1])
            return nil
        }
        for fd in data + wake { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(data[1], F_SETFL, fcntl(data[1], F_GETFL) | O_NONBLOCK)
        output = data[0]
        stop = wake
        let writeEnd = data[1], stopRead = wake[0]
        thread = JoinableThread(runInlineIfNoThread: false) { StdinRelay.relay(from: input, to: writeEnd, client: client, stop: stopRead) }
    }

    private static func relay(from input: Int32, to writeEnd: Int32, client: Int32, stop: Int32) {
        defer { close(writeEnd) }
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            var fds = [pollfd(fd: client, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: stop, events: Int16(POLLIN), revents: 0),
                       pending.isEmpty ? pollfd(fd: input, events: Int16(POLLIN), revents: 0)
                                       : pollfd(fd: writeEnd, events: Int16(POLLOUT), revents: 0)]
            if poll(&fds, 3, -1) < 0 {
                if errno == EINTR { continue }
                return
            }
            if fds[1].revents != 0 { return }
            if fds[0].revents != 0 {
                // The caller sends nothing after its request: readable means it closed (0) or broke (-1).
                var byte: UInt8 = 0
                if recv(client, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT)) <= 0 { return }
            }
            guard fds[2].revents != 0 else { continue }
            if pending.isEmpty {
                let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
                if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                if count <= 0 { return }
                pending = Array(buffer[0..<count])
            } else {
                let written = pending.withUnsafeBytes { write(writeEnd, $0.baseAddress, $0.count) }
                if written < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                if written < 0 { return }
                pending.removeFirst(written)
            }
        }
    }

    /// Stops the relay (the command has ended) and closes everything.
    func finish() {
        var byte: UInt8 = 1
        _ = write(stop[1], &byte, 1)
        thread?.join()
        close(output)
        close(stop[0])
        close(stop[1])
    }
}
