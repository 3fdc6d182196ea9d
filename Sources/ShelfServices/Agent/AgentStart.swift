// AgentStart: starts the sshelf agent in the background (`sshelf agent start`, and the hand-over to OpenSSH when no
// agent runs yet) and waits for its "ready" line.
import FoundationEssentials
import ShelfCore
import ShelfSystem

#if canImport(Glibc)
import Glibc
#endif

public enum AgentStart {
    /// Starts a background agent and waits until it answers; returns its pid and log. For `sshelf agent start`,
    /// and for the hand-over to OpenSSH (`connect --openssh`, the TUI's) when no agent runs yet.
    public static func inBackground(_ context: AppContext, confirmTimeout timeout: Int = 30) throws -> (pid_t, String) {
        let locations = context.locations
        let logPath = locations.stateDirectory + "/agent.log"
        do {
            try PrivateFiles.ensureDirectory(locations.stateDirectory)
        } catch {
            throw ShelfError(.storage, "cannot create \(locations.stateDirectory): \(error)")
        }
        var channel: [Int32] = [-1, -1]
        // Both ends close-on-exec: the spawn's dup2 onto 3 is the agent's copy of the write end, and no other child
        // started meanwhile gets one (the read end would never see its end of input).
        guard CloseOnExec.pipe(&channel) == 0 else {
            throw ShelfError(.failure, "pipe: \(String(cString: strerror(errno)))")
        }
        let argv = [SelfProcess.path, "agent", "--ready-fd", "3", "--confirm-timeout", String(timeout)]
        let spawned = DetachedProcess.spawn(argv, stderrPath: logPath, fd3: channel[1])
        PrivateFiles.tighten(logPath)  // an agent.log left by something else keeps its mode when truncated
        close(channel[1])
        defer { close(channel[0]) }
        let pid: pid_t
        switch spawned {
        case .success(let child): pid = child
        case .failure(let error): throw ShelfError(.failure, "could not start the agent: \(error)")
        }
        let answer = readLine(channel[0], timeoutSeconds: 15)
        guard answer == "ready" else {
            let reason =
                answer.map { $0.hasPrefix("error: ") ? String($0.dropFirst(7)) : $0 } ?? "it did not answer within 15 s"
            throw ShelfError(.failure, "the agent did not start: \(reason)", hint: "see \(logPath)")
        }
        return (pid, logPath)
    }

    /// One line from `fd` within the timeout; nil on timeout or end of input.
    private static func readLine(_ fd: Int32, timeoutSeconds: Int) -> String? {
        let deadline = ContinuousClock.now + .seconds(timeoutSeconds)
        var bytes: [UInt8] = []
        while bytes.count < 4096 {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, ConfirmChannel.milliseconds(until: deadline))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return nil }
            var byte: UInt8 = 0
            let got = read(fd, &byte, 1)
            if got < 0 && errno == EINTR { continue }
            guard got == 1 else { break }
            if byte == 0x0a { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }
}
