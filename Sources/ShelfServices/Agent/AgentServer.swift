// AgentServer: the agent's socket — a 0600 unix socket in the 0700 agent folder of the runtime directory — the
// peer-uid check on every connection (other users are refused and logged), the places each client may take and how
// long an idle connection stays (AgentAdmission), one thread per connection reading framed requests into guarded
// memory (zeroed after each), the state file `agent status|stop` read, and a clean stop on SIGINT/SIGTERM that
// removes the socket and the state file.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfSystem
import ShelfVault

#if canImport(Glibc)
import Glibc
#endif

public final class AgentServer: @unchecked Sendable {
    /// Once a message has begun, the rest of it must arrive within this long (between messages: AgentAdmission.idle).
    static let messageSeconds: Int32 = 10

    private let context: AppContext
    private let service: AgentService
    private let lock = Lock()
    private var connections: [Int32: (thread: JoinableThread, who: String)] = [:]
    private var finished: [JoinableThread] = []
    private var admission = AgentAdmission()

    public init(context: AppContext, service: AgentService) {
        self.context = context
        self.service = service
    }

    /// Serves until SIGINT or SIGTERM (or until another agent takes the socket path over). `ready` gets "ready" or
    /// the reason it could not start. `hostedStop`: the agent runs inside the user service (docs/SERVICE.md), which
    /// owns the signals: it stops when that descriptor becomes readable, and with no connection open it waits on
    /// its descriptors alone (no 2 s tick: the service's lock keeps a second agent off its socket).
    public func run(ready: Int32?, foreground: Bool, hostedStop: Int32? = nil) -> Int32 {
        let locations = context.locations
        let path = locations.agentSocket
        if let running = AgentClient.status(locations) {
            tell(ready, "error: an sshelf agent is already running (pid \(running.pid)) at \(path)")
            context.errorOutput(
                "sshelf: error: an sshelf agent is already running (pid \(running.pid)) at \(path)\n"
                    + "sshelf: hint: 'sshelf agent stop' ends it\n")
            return 1
        }
        let listener: Int32
        let inode: ino_t
        do {
            (listener, inode) = try PrivateSocket.listen(
                at: path, directory: locations.agentDirectory, within: locations.runtimeDirectory, backlog: 64)
        } catch {
            tell(ready, "error: \(error)")
            context.errorOutput("sshelf: error: \(error)\n")
            return 1
        }
        var wake: [Int32] = [-1, -1]
        guard CloseOnExec.pipe(&wake, nonBlocking: true) == 0 else {
            close(listener)
            return 1
        }
        let wakeWrite = wake[1]
        let stop: StopSignals? =
            hostedStop != nil
            ? nil
            : StopSignals {
                var byte: UInt8 = 1
                _ = write(wakeWrite, &byte, 1)
            }
        defer {
            stop?.cancel()
            close(listener)
            if PrivateSocket.ownsPath(path, inode: inode) { unlink(path) }
            AgentStateFile.remove(locations, pid: getpid())
            shutdownConnections()
            // Hosted, a connection thread still waiting for an answer writes to the pipe when it ends: its number
            // must not be reused by another file meanwhile, so the pipe stays open until the service exits.
            if hostedStop == nil {
                close(wake[0])
                close(wake[1])
            }
        }
        AgentStateFile.write(
            locations,
            AgentStateFile.State(
                pid: Int(getpid()), socket: path, started: service.started,
                foreground: foreground))
        service.report("listening on \(path) (pid \(getpid())); keys come from the vault")
        tell(ready, "ready")
        while true {
            var fds = [
                pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake[0], events: Int16(POLLIN), revents: 0),
                pollfd(fd: hostedStop ?? -1, events: Int16(POLLIN), revents: 0),
            ]
            let count = poll(&fds, 3, hostedStop != nil && idleWithoutConnections ? -1 : 2000)
            if count < 0 && errno != EINTR { return 1 }
            if fds[2].revents != 0 || (hostedStop == nil && fds[1].revents != 0) {
                service.report("stopping")
                return 0
            }
            // Hosted: a connection's thread ended and woke the loop to be joined.
            if hostedStop != nil, fds[1].revents != 0 { _ = WakePipe.drain(wake[0]) }
            guard PrivateSocket.ownsPath(path, inode: inode) else {
                service.report("another agent took \(path) over; stopping")
                return 0
            }
            reap()
            closeIdle()
            guard count > 0, fds[0].revents != 0 else { continue }
            let client = CloseOnExec.accept(listener)
            guard client >= 0 else { continue }
            admit(client, ended: hostedStop == nil ? nil : wakeWrite)
        }
    }

    /// The uid check comes first, before a byte is read.
    /// `ended`: written to when the connection's thread ends (a hosted agent's loop waits without a tick).
    private func admit(_ client: Int32, ended: Int32?) {
        guard let peer = PrivateSocket.peer(client) else {
            close(client)
            return
        }
        guard peer.uid == getuid() else {
            service.report(
                "refused a connection from uid \(peer.uid) (\(AgentPeerName.describe(peer))): only uid \(getuid()) "
                    + "may use this agent"
            )
            close(client)
            return
        }
        let who = AgentPeerName.describe(peer)
        lock.lock()
        defer { lock.unlock() }
        switch admission.admit(client, pid: peer.pid) {
        case .refuse(let reason):
            service.report("refused a connection from \(who): \(reason)")
            close(client)
            return
        case .admit(let closing?):
            // Its thread sees the end of the stream, ends and closes it.
            shutdown(closing, Int32(SHUT_RDWR))
            let closed = connections[closing]?.who ?? "a client"
            service.report("closed the connection of \(closed) idle longest, to make room for \(who)")
        case .admit(nil):
            break
        }
        let thread = JoinableThread(runInlineIfNoThread: false) { [self] in
            serve(client, peer: peer)
            lock.lock()
            admission.removed(client)
            if let ended = connections.removeValue(forKey: client) { finished.append(ended.thread) }
            lock.unlock()
            close(client)
            if let ended {
                var byte: UInt8 = 1
                _ = write(ended, &byte, 1)
            }
        }
        connections[client] = (thread, who)
    }

    /// No connection is open (nothing to time out, no thread to reap).
    private var idleWithoutConnections: Bool {
        lock.lock()
        defer { lock.unlock() }
        return connections.isEmpty && finished.isEmpty
    }

    /// Closes the connections idle between messages for longer than AgentAdmission.idle.
    private func closeIdle() {
        lock.lock()
        defer { lock.unlock() }
        for fd in admission.expired() {
            shutdown(fd, Int32(SHUT_RDWR))
            let closed = connections[fd]?.who ?? "a client"
            service.report("closed the connection of \(closed): idle for \(AgentAdmission.idle.components.seconds) s")
        }
    }

    private func activity(_ fd: Int32, busy: Bool) {
        lock.lock()
        defer { lock.unlock() }
        if busy { admission.began(fd) } else { admission.answered(fd) }
    }

    private func reap() {
        lock.lock()
        let done = finished
        finished = []
        lock.unlock()
        for thread in done { thread.join() }
    }

    /// Ends every connection: their reads return and their threads end. A thread still waiting for an answer (a
    /// confirmation, a passphrase) is not waited for; the process ends with it, and nothing it holds is on disk.
    private func shutdownConnections() {
        lock.lock()
        let open = connections
        lock.unlock()
        for fd in open.keys { shutdown(fd, Int32(SHUT_RDWR)) }
        reap()
    }

    /// Request, reply, until the client closes. Each request lives in its own guarded buffer, freed (zeroed)
    /// once answered.
    private func serve(_ fd: Int32, peer: PrivateSocket.Peer) {
        let connection = AgentConnection(peer: peer)
        while true {
            var message: SecretBytes? = nil
            var begun = false
            let outcome = AgentFraming.next(
                read: { buffer in
                    Self.receive(fd, into: buffer, waitForever: !begun).map { count in
                        if !begun && count > 0 { activity(fd, busy: true) }
                        begun = true
                        return count
                    } ?? -1
                },
                storage: { length in
                    let buffer = SecretBytes(count: length)
                    message = buffer
                    return buffer.withUnsafeMutableBytes { $0 }
                })
            switch outcome {
            case .message:
                guard let message else { return }
                let reply = service.handle(message, on: connection)
                guard Self.sendAll(fd, AgentProtocol.frame(reply)) else { return }
                activity(fd, busy: false)
            case .closed:
                return
            case .truncated:
                return
            case .refused(let length):
                service.report(
                    "closed the connection of \(AgentPeerName.describe(peer)): a message of \(length) bytes (the "
                        + "limit is \(AgentLimits.message))"
                )
                return
            }
        }
    }

    /// One recv; nil on error, timeout or a stopped agent. Waits without limit only between messages.
    private static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, waitForever: Bool) -> Int? {
        while true {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, waitForever ? -1 : messageSeconds * 1000)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return nil }
            let got = recv(fd, buffer.baseAddress, buffer.count, 0)
            if got < 0 && errno == EINTR { continue }
            return got < 0 ? nil : got
        }
    }

    private static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += sent
        }
        return true
    }

    private func tell(_ fd: Int32?, _ line: String) {
        guard let fd else { return }
        let bytes = Array((Display.safe(line) + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }
}
