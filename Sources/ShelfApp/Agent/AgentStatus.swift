// AgentStatus: what a running agent says about itself through its own extension (`status@sshelf`), for
// `sshelf agent status`: where, which pid, which keys, locked or not, and who confirms.
import FoundationEssentials
import ShelfCore
import ShelfOperations

struct AgentStatus: Codable, Equatable {
    static let extensionName = "status@sshelf"

    var pid: Int
    var socket: String
    /// Names of the identities served right now.
    var keys: [String]
    /// Those of them whose vault class is locked in the agent (a signature would need the vault passphrase).
    var lockedKeys: [String]
    var locked: Bool
    var vault: String
    var confirm: String
    var confirmTimeout: Int
    var started: Date

    var encoded: String {
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
