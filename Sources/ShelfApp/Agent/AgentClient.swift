// AgentClient: how `sshelf agent status|stop|start` talk to a running agent — its status over the socket (the
// `status@sshelf` extension), and the state file (pid, socket, since when) it writes beside the socket.
import Foundation
import ShelfCore
import ShelfOperations
import ShelfSystem

#if canImport(Glibc)
import Glibc
#endif

enum AgentClient {
    /// The running agent's own account of itself; nil when nothing (of ours) answers on the socket.
    static func status(_ locations: DataLocations) -> AgentStatus? {
        guard let fd = PrivateSocket.connect(locations.agentSocket) else { return nil }
        defer { close(fd) }
        PrivateSocket.setTimeout(fd, seconds: 5, option: SO_RCVTIMEO)
        let request = AgentProtocol.frame([AgentMessage.extension] + SSHWire.string(AgentStatus.extensionName))
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
        return AgentStatus.decode(Array(text))
    }
}

/// `agent/state` beside the socket: which process serves it, for `agent stop` and `agent status`.
enum AgentStateFile {
    struct State: Codable, Equatable {
        var pid: Int
        var socket: String
        var started: Date
        var foreground: Bool
    }

    static func path(_ locations: DataLocations) -> String { locations.agentDirectory + "/state" }

    static func write(_ locations: DataLocations, _ state: State) {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(state) else { return }
        try? PrivateFiles.atomicWrite(data, to: path(locations))
    }

    static func read(_ locations: DataLocations) -> State? {
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
