// SSHConfigAgentCheck: the bridge's guard for the hosts whose key only the sshelf agent serves — a `Match exec` that
// ssh runs before it connects, with the user's terminal still its own (stderr, /dev/tty). With sshelf's path known it
// is `sshelf agent ensure-unlocked HOST SOCKET`, first in the bridge: when the host's key is in a locked vault class
// it asks for the vault passphrase where the user is (the terminal, an open TUI, SSH_ASKPASS); when nothing can ask,
// or the agent is not running, it prints one line saying what to run and exits 0, and the block it matches ends ssh
// quietly (LogLevel QUIET, ProxyCommand /bin/false: first values win, and this block is read before the hosts'),
// so ssh never falls back to "Load key …pub: error in libcrypto" and a password prompt. Exit 1 — unlocked, or the
// user just unlocked it — matches nothing and ssh goes on. Without sshelf's path (or one that cannot be quoted) the
// older line is written at the end: `test -S SOCKET || echo …` (the agent not running), matching nothing.
// docs/SSH.md, "The ssh_config bridge"; cost measured in docs/PERFORMANCE.md.
import FoundationEssentials

extension SSHConfigEmitter {
    /// Names per `Match` line: ssh reads each line whole, and a short list keeps each pattern check cheap.
    static let agentCheckChunk = 64

    /// The names written for `input`'s hosts whose key only the sshelf agent serves.
    static func agentHostNames(_ input: Input, bridge: Bridge) -> [String] {
        let identities = Dictionary(input.identities.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let written = writtenNames(input.hosts)
        return sorted(input.hosts).compactMap { host -> String? in
            guard let name = written[host.id], quote(name) == name, let id = host.identityID,
                identities[id]?.privateKeyRef != nil, bridge.publicKeyFiles[id] != nil
            else { return nil }
            return name
        }
    }

    /// Whether `text` can sit inside the guard's single quotes (for sh) inside double quotes (for ssh).
    static func guardQuotable(_ text: String) -> Bool {
        !text.isEmpty && !text.contains(where: { "'\"\\".contains($0) })
            && !text.unicodeScalars.contains(where: Validation.isForbidden)
    }

    /// The guard, written first in the bridge: `Match originalhost … exec "sshelf agent ensure-unlocked %n SOCKET"`
    /// with the lines that end ssh quietly when it matches; "" without an sshelf path (then `agentCheck` is used).
    static func unlockGuard(_ input: Input, bridge: Bridge) -> String {
        guard let program = bridge.sshelfProgram, guardQuotable(program), guardQuotable(bridge.agentSocket) else {
            return ""
        }
        // %n, the host name as the user typed it, reaches sh inside single quotes: a name holding one (or one sshelf
        // would read as an option) is left to the older check, so no name, synced from another device or typed, can
        // be a shell command.
        let names = agentHostNames(input, bridge: bridge).filter { !$0.contains("'") && !$0.hasPrefix("-") }
        guard !names.isEmpty else { return "" }
        // ssh expands %-tokens in the command: a literal % is doubled.
        let command =
            "'\(program.replacing("%", with: "%%"))' agent ensure-unlocked '%n' "
            + "'\(bridge.agentSocket.replacing("%", with: "%%"))'"
        var out = """

            # The sshelf agent serves these hosts' keys. Before ssh connects, sshelf asks for the vault passphrase
            # where you are when their key is locked; when nothing can ask (or the agent is not running) it prints
            # what to run, and the lines below end ssh without a password prompt.

            """
        for start in stride(from: 0, to: names.count, by: agentCheckChunk) {
            let chunk = names[start..<min(names.count, start + agentCheckChunk)]
            out += "Match originalhost \(chunk.joined(separator: ",")) exec \"\(command)\"\n"
            out += "    LogLevel QUIET\n    ProxyCommand /bin/false\n"
        }
        return out
    }

    /// The older check, at the end of the bridge (no sshelf path to run): says when the agent is not running.
    static func agentCheck(_ input: Input, bridge: Bridge) -> String {
        if let program = bridge.sshelfProgram, guardQuotable(program), guardQuotable(bridge.agentSocket) {
            return ""
        }
        let names = agentHostNames(input, bridge: bridge)
        // The command sits in double quotes for ssh and single quotes for sh; ssh expands %-tokens in it.
        let socket = bridge.agentSocket
        guard !names.isEmpty, guardQuotable(socket) else { return "" }
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
