// PostQuantumWords: what sshelf says about a host's `pq` setting (docs/SSH.md, "Key exchange"): who asks for a
// post-quantum key exchange (the host, or a group above it), and why such a host's sessions go to OpenSSH's ssh.
import FoundationEssentials
import ShelfCore
import ShelfSSH

public enum PostQuantumWords {
    /// Why `host` must use a post-quantum key exchange (nil when nothing asks): `its pq setting is require`, or
    /// `group prod/eu sets pq require`.
    public static func why(_ host: ShelfCore.Host, tree: GroupTree) -> String? {
        switch PostQuantumSetting.source(host, groups: tree.groups) {
        case nil: nil
        case .host: "its pq setting is \(Display.safe(host.pq.rawValue))"
        case .group(let group):
            "group \(Display.safe(tree.path(of: group.id))) sets pq \(Display.safe(group.pq.rawValue))"
        }
    }

    /// `show`'s line: who requires it, and what that does.
    public static func required(_ host: ShelfCore.Host, groups: [UUID: HostGroup]) -> String? {
        guard let why = why(host, tree: GroupTree(Array(groups.values))) else { return nil }
        return "required (\(why)): every session goes through OpenSSH's ssh with post-quantum key exchange only"
    }

    /// The command that lets `host` use a classical key exchange again: its own setting, or the group's that asks.
    public static func offCommand(_ host: ShelfCore.Host, tree: GroupTree) -> String {
        if case .group(let group) = PostQuantumSetting.source(host, groups: tree.groups) {
            return "sshelf group edit \(ShellWord.quote(Display.safe(tree.path(of: group.id)))) --pq off"
        }
        return "sshelf edit \(ShellWord.quote(Display.safe(host.name))) --pq off"
    }

    /// The handover reason for a plan whose hop requires post-quantum key exchange (nil when none does).
    public static func handover(_ plan: ConnectPlan) -> String? {
        guard let hop = plan.hosts.first(where: { plan.postQuantum[$0.id] != nil }), let why = plan.postQuantum[hop.id]
        else { return nil }
        return "\(Display.safe(hop.name)) requires post-quantum key exchange (\(why)), which sshelf's own client "
            + "(libssh2 \(LibSSH2.version)) does not have"
    }
}
