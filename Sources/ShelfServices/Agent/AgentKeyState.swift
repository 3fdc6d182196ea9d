// AgentKeyState: whether the key a host logs in with can be signed with now — the question the ssh_config bridge's
// unlock guard (`sshelf agent ensure-unlocked HOST`) asks the running agent through its own extension
// (`key-state@sshelf`, the host name as typed) before ssh connects. The agent answers from the store and the vault
// session it signs through (whichever process unlocked it), so the guard costs one round trip when the key is open.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfSystem

#if canImport(Glibc)
import Glibc
#endif

public struct AgentKeyState: Codable, Equatable, Sendable {
    static let extensionName = "key-state@sshelf"

    public enum State: String, Codable, Sendable {
        /// The agent can sign with the host's key now (or the host has no vault key: nothing to unlock).
        case open
        /// The vault session is locked for the key's class: a passphrase would open it.
        case locked
        /// The agent itself is locked (`ssh-add -x`).
        case agentLocked
    }

    public var state: State
    /// The identity's name (for the question and the line), when the host has a vault key.
    public var key: String?
    /// The key's class, when locked.
    public var accessibility: String?

    public init(state: State, key: String? = nil, accessibility: String? = nil) {
        self.state = state
        self.key = key
        self.accessibility = accessibility
    }

    var encoded: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(self)).map { Array($0) } ?? Array("{\"state\":\"open\"}".utf8)
    }
}

extension AgentClient {
    /// Asks the agent at `socket` about the key host `name` logs in with; nil when no agent (of ours) answers.
    public static func keyState(socket: String, host name: String) -> AgentKeyState? {
        guard let fd = PrivateSocket.connect(socket) else { return nil }
        defer { close(fd) }
        PrivateSocket.setTimeout(fd, seconds: 10, option: SO_RCVTIMEO)
        let request = AgentProtocol.frame(
            [AgentMessage.extension] + SSHWire.string(AgentKeyState.extensionName)
                + SSHWire.string(String(name.utf8.prefix(1024)) ?? ""))
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
        return try? JSONDecoder().decode(AgentKeyState.self, from: Data(Array(text)))
    }
}
