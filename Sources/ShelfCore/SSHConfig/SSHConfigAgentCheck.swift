// SSHConfigAgentCheck: the bridge's last lines — for the hosts whose key only the sshelf agent serves, a `Match exec`
// that, when the agent's socket is missing, prints one line naming `sshelf agent start` (ssh shows a command's
// stderr) and matches nothing; otherwise ssh's "Permission denied" would be all the user sees. Only those hosts' ssh
// runs pay for it: one `sh -c test` (about 2.5 ms of CPU per ssh, measured; docs/SSH.md, "The ssh_config bridge").
import FoundationEssentials

extension SSHConfigEmitter {
    /// Names per `Match` line: ssh reads each line whole, and a short list keeps each pattern check cheap.
    static let agentCheckChunk = 64

    /// The `Match originalhost … exec …` lines for `input`'s agent hosts, or "" when none (or when the socket path
    /// cannot be written inside the command's quotes).
    static func agentCheck(_ input: Input, bridge: Bridge) -> String {
        let identities = Dictionary(input.identities.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let written = writtenNames(input.hosts)
        let names = sorted(input.hosts).compactMap { host -> String? in
            guard let name = written[host.id], quote(name) == name, let id = host.identityID,
                identities[id]?.privateKeyRef != nil, bridge.publicKeyFiles[id] != nil
            else { return nil }
            return name
        }
        // The command sits in double quotes for ssh and single quotes for sh; ssh expands %-tokens in it.
        let socket = bridge.agentSocket
        guard !names.isEmpty, !socket.contains(where: { "'\"\\".contains($0) }),
            !socket.unicodeScalars.contains(where: Validation.isForbidden)
        else { return "" }
        let escaped = socket.replacing("%", with: "%%")
        let command =
            "test -S '\(escaped)' || { echo 'sshelf: the key of this host is in the sshelf vault and the sshelf agent "
            + "is not running: run sshelf agent start' >&2; exit 1; }"
        var out = "\n# The sshelf agent serves these hosts' keys: when it is not running, ssh says how to start it.\n"
        for start in stride(from: 0, to: names.count, by: agentCheckChunk) {
            let chunk = names[start..<min(names.count, start + agentCheckChunk)]
            out += "Match originalhost \(chunk.joined(separator: ",")) exec \"\(command)\"\n"
        }
        return out
    }
}
