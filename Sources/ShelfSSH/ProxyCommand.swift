// ProxyCommand: one more hop transport — the host's ProxyCommand, run by `/bin/sh -c` with OpenSSH's tokens
// expanded (%h %p %r %n %%; shell syntax in a value refused, the rest quoted), its stdin and stdout one end of a
// socketpair whose other end the session talks over (as a jump hop's bridge does). Its stderr is kept (the last
// 16 KiB) so a failure says what the command said; the child is hung up on and reaped after the session has
// disconnected.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfSystem

struct ProxyCommandTransport: HopTransport {
    let command: String

    func event(for hop: SSHEndpoint) -> ConnectEvent { .connecting(hop: hop.name, address: "its ProxyCommand") }

    func open(_ hop: SSHEndpoint, options: ConnectOptions) throws(SSHError) -> (socket: Int32, carrier: HopCarrier?) {
        let expanded = try Self.expand(command, hop: hop)
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw SSHError(.network, "could not connect the ProxyCommand: \(String(cString: strerror(errno)))")
        }
        var errors: [Int32] = [-1, -1]
        guard CloseOnExec.pipe(&errors) == 0 else {
            close(pair[0])
            close(pair[1])
            throw SSHError(.network, "could not connect the ProxyCommand: \(String(cString: strerror(errno)))")
        }
        let started = ChildProcess.spawn(
            ["/bin/sh", "-c", "exec " + expanded], stdin: pair[1], stdout: pair[1],
            stderr: errors[1])
        close(pair[1])
        close(errors[1])
        guard case .success(let pid) = started else {
            close(pair[0])
            close(errors[0])
            throw SSHError(.network, "could not start the ProxyCommand of \(hop.name) (/bin/sh)")
        }
        options.cancellation?.register(pair[0])
        return (pair[0], ProxyCommandChild(pid: pid, command: expanded, stderr: errors[0]))
    }

    /// OpenSSH's ProxyCommand tokens: %h the address, %p the port, %r the user, %n the name as typed, %% a percent.
    /// A value that holds shell syntax is refused and any other is quoted where it lands (ProxyCommandTokens), so a
    /// host field — typed, imported or synced from another device — can never run a command of its own.
    static func expand(_ command: String, hop: SSHEndpoint) throws(SSHError) -> String {
        let values = ProxyCommandTokens.Values(hostname: hop.hostname, port: hop.port, user: hop.user, name: hop.name)
        do {
            return try ProxyCommandTokens.expand(command, values)
        } catch {
            throw SSHError(.invalidConfiguration, "the ProxyCommand of \(hop.name) \(error.message)", hint: error.hint)
        }
    }
}

/// The running ProxyCommand: what it wrote to stderr, and its end.
final class ProxyCommandChild: HopCarrier, @unchecked Sendable {
    let pid: pid_t
    let command: String
    private let stderrFD: Int32
    private let lock = Lock()
    private var captured: [UInt8] = []
    private var reader: JoinableThread?
    private var status: Int32?
    /// Set under the lock: the reader saw the end of stderr, or is told to stop (a grandchild may keep it open).
    private var ended = false
    private var stopping = false
    static let keep = 16 * 1024

    init(pid: pid_t, command: String, stderr: Int32) {
        self.pid = pid
        self.command = command
        self.stderrFD = stderr
        reader = JoinableThread { [self] in readErrors() }
    }

    private func readErrors() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            var pfd = pollfd(fd: stderrFD, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, 100)
            lock.lock()
            let stop = stopping
            lock.unlock()
            if ready == 0 {
                if stop { break }
                continue
            }
            let count = buffer.withUnsafeMutableBytes { read(stderrFD, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            lock.lock()
            captured += buffer[0..<count]
            if captured.count > Self.keep { captured.removeFirst(captured.count - Self.keep) }
            lock.unlock()
        }
        lock.lock()
        ended = true
        lock.unlock()
        close(stderrFD)
    }

    private var hasEnded: Bool {
        lock.lock()
        defer { lock.unlock() }
        return ended
    }

    /// What the command wrote to stderr so far, cleaned for a terminal.
    var errorText: String {
        lock.lock()
        defer { lock.unlock() }
        return UntrustedText.clean(String(decoding: captured, as: UTF8.self)).trimmingSpacesAndNewlines()
    }

    /// The session could not start over the command: say what the command said and how it ended.
    func failure(handshake error: SSHError) -> SSHError {
        // A command that failed exits at once; give it a moment, then read what it left.
        for _ in 0..<50 where status == nil || !hasEnded {
            if status == nil { status = ChildProcess.poll(pid) }
            usleep(20_000)
        }
        let said = errorText
        let ended =
            status.map { $0 >= 128 ? "ended by signal \($0 - 128)" : "exited with status \($0)" } ?? "is still running"
        return SSHError(
            error.kind,
            "the ProxyCommand of this host (\(command)) \(ended) before the SSH handshake finished"
                + (said.isEmpty ? "" : ": \(said)"),
            library: error.libraryMessage,
            hint: "run the command yourself to see what it does; the host's ProxyCommand is shown by sshelf show")
    }

    /// After the session disconnected: hang up on the command (as ssh does), reap it, and stop reading its stderr.
    func stop() {
        if status == nil {
            kill(pid, SIGHUP)
            status = ChildProcess.waitForExit(pid, deadline: Date().addingTimeInterval(1))
            if status == nil {
                kill(pid, SIGKILL)
                status = ChildProcess.wait(pid)
            }
        }
        lock.lock()
        stopping = true
        lock.unlock()
        reader?.join()
        reader = nil
    }
}
