// WarmKeeper: the background process behind `exec --persist` — logs in once without asking anything (vault,
// agent, key file only), then serves exec requests from our own uid over a 0600 unix socket, one channel each,
// until it has been idle for its time, is told to stop, or its socket was replaced.
import Foundation
import ShelfCore
import ShelfSSH
import ShelfStore
import ShelfSystem

enum WarmKeeper {
    /// Runs the keeper in this process. `ready` (a pipe from the spawning `exec`) gets "ready\n" or the reason the
    /// login failed, and is closed; from then on the keeper talks only through its socket.
    static func serve(_ plan: ConnectPlan, store: Store, options: ConnectOptions, idle: Int, ready: Int32?,
                      context: AppContext) -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        let source = VaultCredentialSource(context: context, askPassphrase: nil)
        let connection: SSHConnection
        do {
            connection = try SSHConnector(options: options, credentials: source, delegate: NoPrompts()).connect(plan.endpoints)
        } catch {
            tell(ready, "error: " + error.message)
            return 255
        }
        defer { connection.close() }
        try? ConnectPlan.record(connection.outcome, target: plan.target.id, store: store)

        let path = WarmSocket.path(context.locations, host: plan.target.id)
        let listener: Int32
        let inode: ino_t
        do {
            (listener, inode) = try listen(at: path, directory: WarmSocket.directory(context.locations))
        } catch {
            tell(ready, "error: \(error)")
            return 1
        }
        defer {
            close(listener)
            if ownsPath(path, inode: inode) { unlink(path) }
        }
        tell(ready, "ready")

        let fingerprint = WarmSocket.fingerprint(plan.endpoints)
        var lastUse = Date()
        while true {
            let left = Double(idle) - Date().timeIntervalSince(lastUse)
            if left <= 0 { return 0 }
            let wait = min(left, Double(max(1, connection.keepAlive())), 5)
            var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
            let count = poll(&fds, 1, Int32(wait * 1000) + 1)
            // Another keeper for this host took the path over (or someone removed it): nobody can reach us.
            guard ownsPath(path, inode: inode) else { return 0 }
            guard count > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            defer { close(client) }
            guard WarmSocket.peerIsUs(client) else { continue }
            switch handle(client, connection: connection, fingerprint: fingerprint) {
            case .served: lastUse = Date()
            case .stop: return 0
            }
        }
    }

    private enum Next { case served, stop }

    private static func handle(_ client: Int32, connection: SSHConnection, fingerprint: [UInt8]) -> Next {
        // A client that connects and says nothing must not hold the keeper.
        WarmSocket.setTimeout(client, seconds: 5, option: SO_RCVTIMEO)
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
        do {
            let exit = try connection.exec(command, input: input, stdout: { forward(.stdout, $0) },
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

    /// Binds under a temporary name, makes it 0600, then renames it into place, so the path never points at a
    /// socket with looser permissions and a keeper already there is replaced atomically.
    private static func listen(at path: String, directory: String) throws -> (Int32, ino_t) {
        try PrivateFiles.ensureDirectory(directory)
        let temporary = path + ".\(getpid()).tmp"
        unlink(temporary)
        guard var address = WarmSocket.address(temporary) else {
            throw ShelfError(.failure, "the socket path \(temporary) is too long for a unix socket")
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ShelfError(.failure, "socket: \(String(cString: strerror(errno)))") }
        let old = umask(0o177)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        umask(old)
        guard bound == 0, chmod(temporary, 0o600) == 0, Glibc.listen(fd, 16) == 0, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            unlink(temporary)
            throw ShelfError(.failure, "could not listen on \(path): \(reason)")
        }
        var info = stat()
        guard stat(path, &info) == 0 else {
            close(fd)
            throw ShelfError(.failure, "could not listen on \(path): \(String(cString: strerror(errno)))")
        }
        return (fd, info.st_ino)
    }

    private static func ownsPath(_ path: String, inode: ino_t) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_ino == inode
    }

    private static func tell(_ fd: Int32?, _ line: String) {
        guard let fd else { return }
        let bytes = Array((Display.safe(line) + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }
}

/// The keeper asks nobody: an unknown or changed host key is refused, and no password or passphrase is typed.
private final class NoPrompts: ConnectDelegate {
    func decide(_ question: HostKeyQuestion) -> HostKeyDecision { .refuse }
    func askPassword(_ request: PasswordRequest) -> PasswordAnswer? { nil }
    func answer(_ challenge: KeyboardChallenge) -> [SecretBytes]? { nil }
}
