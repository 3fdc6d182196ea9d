// SocketForwardSupport: whether sshelf's own client can run a forward rule with a unix socket at one end, and the
// precise reason when it cannot. A -L rule to a socket on the server goes through libssh2's direct-streamlocal
// channel (libssh2 1.11, looked up at run time); a rule that listens on a socket (-R /run/a.sock:…, -L /tmp/x:…) or
// connects to one here (-R 8080:/run/b.sock) is OpenSSH's alone: no libssh2 has streamlocal-forward.
import ShelfCore

public enum SocketForwardSupport {
    /// Why the own client cannot run `rule` of `hostName` with the loaded libssh2 (nil when it can, or the rule has
    /// no socket). The hint names the command that runs it through OpenSSH.
    public static func refusal(_ rule: PortForwardRule, hostName: String) -> SSHError? {
        let spec = rule.spec
        guard spec.hasSocket else { return nil }
        let ruleName = String(rule.id.uuidString.lowercased().prefix(8))
        let openssh = "sshelf forward start --openssh \(ShellWord.quote(hostName)) \(ruleName)"
        if rule.kind == .local, spec.targetIsSocket, !spec.listensOnSocket {
            guard !LibSSH2.features.unixSocketForwards else { return nil }
            return SSHError(
                .invalidConfiguration,
                "-L \(spec) forwards to a unix socket on the server, which needs libssh2 1.11 or later "
                    + "(direct-streamlocal); this sshelf runs libssh2 \(LibSSH2.version)",
                hint: "install libssh2 1.11 or newer (\(LibSSH2.newerPackage)), or run the rule through "
                    + "OpenSSH's ssh: \(openssh)")
        }
        let what = spec.listensOnSocket ? "listens on a unix socket" : "connects to a unix socket on this machine"
        return SSHError(
            .invalidConfiguration,
            "-\(spec.flag) \(spec) \(what), which sshelf's own client cannot do with any libssh2 "
                + "(it has no streamlocal-forward)",
            hint: "run it through OpenSSH's ssh: \(openssh)")
    }
}
