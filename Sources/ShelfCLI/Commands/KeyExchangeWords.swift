// KeyExchangeWords: what `connect -v` and `check` say about the key exchange of a host's sessions (docs/SSH.md,
// "Key exchange"): sshelf's own client (libssh2) has no post-quantum one; OpenSSH's ssh has.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfStore

enum KeyExchangeWords {
    /// `connect -v`'s line once the session is up.
    static func connected(_ kex: String, host: String) -> String {
        let name = Display.safe(host)
        if KeyExchange.isPostQuantum(kex) { return "sshelf: key exchange with \(name): \(KeyExchange.describe(kex))" }
        return "sshelf: key exchange with \(name): \(KeyExchange.describe(Display.safe(kex))); libssh2 has no "
            + "post-quantum one (sshelf connect \(ShellWord.quote(name)) --openssh uses OpenSSH's)"
    }

    /// `check`'s list of the hosts whose last session from this device was not post-quantum (nil: none). A host that
    /// requires post-quantum key exchange (`--pq require`, its own or a group's) is not listed: since it was set, its
    /// sessions go only through OpenSSH limited to post-quantum ones (a classical key exchange recorded before is
    /// history, not its last session's).
    static func classicalLastSessions(_ hosts: [ShelfCore.Host], store: Store) throws -> String? {
        let groups = GroupTree(try store.groups()).groups
        var lines: [String] = []
        for host in hosts.sorted(by: { NaturalOrder.precedes($0.name, $1.name) })
        where !PostQuantumSetting.required(host, groups: groups) {
            guard let kex = try store.setting(KeyExchange.settingKey(host.id)), !KeyExchange.isPostQuantum(kex)
            else { continue }
            lines.append("  \(Display.safe(host.name)): \(Display.safe(kex))\n")
        }
        guard !lines.isEmpty else { return nil }
        return "hosts whose last session was not post-quantum (sshelf's own client has no post-quantum key exchange; "
            + "OpenSSH's has: sshelf edit NAME --pq require sends every session of the host through it):\n"
            + lines.joined()
    }
}
