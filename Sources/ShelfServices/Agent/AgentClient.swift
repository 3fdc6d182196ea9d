// AgentClient: how `sshelf agent status|stop|start` talk to a running agent — its status over the socket (the
// `status@sshelf` extension), the vault passphrase handed over as ssh-add -X does (UNLOCK), and the state file
// (pid, socket, since when) it writes beside the socket.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfSystem

#if canImport(Glibc)
import Glibc
#endif

public enum AgentClient {
    /// The running agent's own account of itself; nil when nothing (of ours) answers on the socket.
    public static func status(_ locations: DataLocations) -> AgentStatus? {
        extensionReply(socket: locations.agentSocket, AgentStatus.extensionName, timeout: 5).flatMap(AgentStatus.decode)
    }

    /// One request of sshelf's own agent extensions (`NAME@sshelf`, its arguments as SSH wire strings) and the text
    /// of a SUCCESS answer; nil when nothing (of ours) answers on `socket` within `timeout` seconds, or it refused.
    static func extensionReply(socket: String, _ name: String, arguments: [UInt8] = [], timeout: Int) -> [UInt8]? {
        guard let fd = PrivateSocket.connect(socket) else { return nil }
        defer { close(fd) }
        PrivateSocket.setTimeout(fd, seconds: timeout, option: SO_RCVTIMEO)
        let request = AgentProtocol.frame([AgentMessage.extension] + SSHWire.string(name) + arguments)
        let sent = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == request.count else { return nil }
        var storage: UnsafeMutableRawBufferPointer? = nil
        defer { storage?.deallocate() }
        let outcome = AgentFraming.next(
            read: { buffer in recv(fd, buffer.baseAddress, buffer.count, 0) },
            storage: { length in
                let made = UnsafeMutableRawBufferPointer.allocate(byteCount: length, alignment: 1)
                storage = made
                return made
            })
        guard case .message = outcome, let storage else { return nil }
        var reader = SSHWireReader(UnsafeRawBufferPointer(storage))
        guard reader.byte() == AgentMessage.success, let text = reader.string(limit: AgentLimits.message) else {
            return nil
        }
        return Array(text)
    }
}

extension AgentClient {
    /// Gives a running agent the vault passphrase (an UNLOCK request, built in guarded memory); true when it
    /// opened the vault.
    public static func unlock(_ locations: DataLocations, passphrase: SecretBytes) -> Bool {
        unlock(socket: locations.agentSocket, passphrase: passphrase)
    }

    /// The same, to the agent listening at `socket` (the path the ssh_config bridge's guard was given).
    public static func unlock(socket: String, passphrase: SecretBytes) -> Bool {
        guard let fd = PrivateSocket.connect(socket) else { return false }
        defer { close(fd) }
        // The answer may wait out the back-off of wrong passphrases before it (UnlockBackoff), then Argon2id.
        PrivateSocket.setTimeout(fd, seconds: Int(UnlockBackoff.longest.components.seconds) + 30, option: SO_RCVTIMEO)
        let head =
            SSHWire.uint32(UInt32(5 + passphrase.count)) + [AgentMessage.unlock]
            + SSHWire.uint32(UInt32(passphrase.count))
        let frame = SecretBytes.joined([SecretBytes(head), passphrase])
        let sent = frame.withUnsafeBytes { bytes -> Bool in
            var offset = 0
            while offset < bytes.count {
                let count = send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return false }
                offset += count
            }
            return true
        }
        guard sent else { return false }
        var reply = [UInt8](repeating: 0, count: 5)
        var got = 0
        while got < reply.count {
            let count = reply.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + got, $0.count - got, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            got += count
        }
        return reply == [0, 0, 0, 1, AgentMessage.success]
    }
}

/// `agent/state` beside the socket: which process serves it, for `agent stop` and `agent status`.
public enum AgentStateFile {
    public struct State: Codable, Equatable {
        public var pid: Int
        public var socket: String
        public var started: Date
        public var foreground: Bool
    }

    static func path(_ locations: DataLocations) -> String { locations.agentDirectory + "/state" }

    static func write(_ locations: DataLocations, _ state: State) {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(state) else { return }
        try? PrivateFiles.atomicWrite(data, to: path(locations))
    }

    public static func read(_ locations: DataLocations) -> State? {
        guard let data = FileManager.default.contents(atPath: path(locations)) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(State.self, from: data)
    }

    /// Removes the state file if it still names `pid` (a newer agent may have written its own).
    static func remove(_ locations: DataLocations, pid: pid_t) {
        if read(locations)?.pid == Int(pid) { unlink(path(locations)) }
    }
}
