// WarmClient: `exec`'s side of a warm session — run a command through a host's keeper when one is there (nil
// means "connect normally": no keeper, a stale socket, a changed host record), start a keeper in the background
// (posix_spawn, new session, stdio on /dev/null) and wait until it has logged in, and stop keepers.
import FoundationEssentials
import Glibc
import ShelfSystem
import ShelfCore
import ShelfOperations
import ShelfSSH

public enum WarmClient {
    /// The remote exit status, or nil when the command did not run through a keeper and should connect itself.
    public static func exec(_ command: String, stdin: Bool, plan: ConnectPlan, context: AppContext) -> Int32? {
        exec(
            command, stdin: stdin, plan: plan, locations: context.locations, onSocket: nil,
            output: { toStderr, bytes in bytes.withUnsafeBytes { StandardStreams.write($0, fd: toStderr ? 2 : 1) } },
            failure: { context.errorOutput("sshelf: error: \(Display.safe($0))\n") })
    }

    /// The same, with the output handed to `output` (true: stderr) and a failure after output began to `failure`
    /// (`sshelf run` keeps them per host). `onSocket` gets the keeper's socket before the request goes out, so
    /// another thread can shut it down (a timeout); it returns false when the caller gave up meanwhile.
    static func exec(
        _ command: String, stdin: Bool, plan: ConnectPlan, locations: DataLocations,
        onSocket: ((Int32) -> Bool)?, output write: (Bool, [UInt8]) -> Void, failure: (String) -> Void
    ) -> Int32? {
        let path = WarmSocket.path(locations, host: plan.target.id)
        guard let fd = PrivateSocket.connect(path) else {
            if errno == ECONNREFUSED { unlink(path) }  // a keeper that died without cleaning up
            return nil
        }
        defer { close(fd) }
        if let onSocket, !onSocket(fd) { return nil }
        let request = WarmSocket.fingerprint(plan.endpoints) + [stdin ? WarmSocket.stdinFlag : 0] + Array(command.utf8)
        guard WarmSocket.send(fd, .exec, request, passing: stdin ? 0 : nil) else { return nil }
        var reader = WarmSocket.Reader(fd)
        var wroteOutput = false
        while let (type, payload) = reader.next() {
            switch type {
            case .stdout, .stderr:
                wroteOutput = true
                write(type == .stderr, payload)
            case .exit:
                return WarmSocket.int32(payload) ?? 255
            case .fallback where !wroteOutput:
                return nil
            case .fallback, .error:
                failure(String(decoding: payload, as: UTF8.self))
                return 255
            default:
                break
            }
        }
        guard wroteOutput else { return nil }
        failure("the warm session ended in the middle of the command")
        return 255
    }

    /// Starts `sshelf warm serve` for the host and waits (up to `timeout`) until it has logged in. Returns nil when
    /// it is ready, else why not (it never asks for anything, so a host that needs a typed secret cannot be kept).
    public static func start(plan: ConnectPlan, idle: Int, timeout: Double, context: AppContext) -> String? {
        var pipeFDs: [Int32] = [0, 0]
        guard CloseOnExec.pipe(&pipeFDs) == 0 else { return "pipe: \(String(cString: strerror(errno)))" }
        // Nothing of ours but the ready pipe may reach the keeper (an inherited pipe would keep whoever reads our
        // output waiting for its end).
        CloseOnExec.markAll(from: 3)
        defer { close(pipeFDs[0]) }
        let argv = [
            executablePath(), "warm", "serve", plan.target.id.uuidString, "--idle", String(idle), "--ready-fd", "3",
        ]
        let spawned = spawn(argv, readyFD: pipeFDs[1])
        close(pipeFDs[1])
        if let spawned { return spawned }
        var line: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 512)
        while Date() < deadline {
            var fds = [pollfd(fd: pipeFDs[0], events: Int16(POLLIN), revents: 0)]
            let left = Int32(max(1, deadline.timeIntervalSinceNow * 1000))
            guard poll(&fds, 1, left) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(pipeFDs[0], $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            line += buffer[0..<count]
        }
        let text = String(decoding: line, as: UTF8.self).trimmingSpacesAndNewlines()
        if text == "ready" { return nil }
        if text.hasPrefix("error: ") { return String(text.dropFirst(7)) }
        return text.isEmpty ? "the background session did not start" : text
    }

    /// Asks the keeper for `host` (or every keeper) to exit; returns how many did.
    public static func stop(host: UUID?, context: AppContext) -> Int {
        let directory = WarmSocket.directory(context.locations)
        let paths: [String]
        if let host {
            paths = [WarmSocket.path(context.locations, host: host)]
        } else {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            paths = names.filter { $0.hasSuffix(".sock") }.sorted().map { directory + "/" + $0 }
        }
        var stopped = 0
        for path in paths {
            guard let fd = PrivateSocket.connect(path) else {
                if errno == ECONNREFUSED { unlink(path) }
                continue
            }
            // A keeper busy with a command answers only when it ends: stop never waits on it for long.
            PrivateSocket.setTimeout(fd, seconds: 5, option: SO_RCVTIMEO)
            WarmSocket.send(fd, .stop)
            var reader = WarmSocket.Reader(fd)
            if let (type, _) = reader.next(), type == .ok { stopped += 1 }
            close(fd)
        }
        return stopped
    }

    private static func executablePath() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// A detached child (new session, stdio on /dev/null) with the ready pipe as fd 3 and nothing else inherited.
    private static func spawn(_ argv: [String], readyFD: Int32) -> String? {
        switch DetachedProcess.spawn(argv, fd3: readyFD) {
        case .success: return nil
        case .failure(let error):
            return "could not start the background session: \(String(cString: strerror(error.code)))"
        }
    }
}
