// AgentStatus: what a running agent says about itself through its own extension (`status@sshelf`), for
// `sshelf agent status`: where, which pid, which keys, locked or not, and who confirms.
import FoundationEssentials
import ShelfCore
import ShelfOperations

public struct AgentStatus: Codable, Equatable {
    static let extensionName = "status@sshelf"

    public var pid: Int
    public var socket: String
    /// Names of the identities served right now.
    public var keys: [String]
    /// Those of them whose vault class is locked in the agent (a signature would need the vault passphrase).
    public var lockedKeys: [String]
    public var locked: Bool
    public var vault: String
    /// Whether a `vault unlock` in another process reaches this agent (the kernel keyring shares it); nil from an
    /// agent older than this field, which is read as yes.
    public var sharedUnlock: Bool?
    public var confirm: String
    public var confirmTimeout: Int
    public var started: Date

    public var encoded: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    static func decode(_ text: [UInt8]) -> AgentStatus? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(AgentStatus.self, from: Data(text))
    }
}

/// Names the process on the other end of an agent connection for the log: `ssh (pid 4242)`.
enum AgentPeerName {
    static func describe(_ peer: PrivateSocket.Peer) -> String {
        let comm = (try? String(contentsOfFile: "/proc/\(peer.pid)/comm", encoding: .utf8))?
            .trimmingSpacesAndNewlines()
        guard let comm, !comm.isEmpty else { return "pid \(peer.pid)" }
        return "\(Display.safe(comm)) (pid \(peer.pid))"
    }
}
