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
        let text = extensionReply(
            socket: socket, AgentKeyState.extensionName,
            arguments: SSHWire.string(String(name.utf8.prefix(1024)) ?? ""), timeout: 10)
        return text.flatMap { try? JSONDecoder().decode(AgentKeyState.self, from: Data($0)) }
    }
}
