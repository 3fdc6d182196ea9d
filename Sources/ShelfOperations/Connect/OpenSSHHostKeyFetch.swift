// OpenSSHHostKeyFetch: `sshelf trust` for a host whose key sshelf's own client cannot fetch with a post-quantum key
// exchange (libssh2 has none) — one that requires post-quantum key exchange (`pq require`), or a server that offers
// only that. OpenSSH's ssh reads the key over a post-quantum key exchange: no config of the user's (-F /dev/null), no
// agent, every authentication method off (nothing but the user name is sent, and ssh stops at the refusal), the key
// accepted into a private temporary known_hosts that is read and removed. `trust` then checks and pins it as always.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfSSH
import ShelfSystem

public enum OpenSSHHostKeyFetch {
    /// The key `plan`'s target offers over one of `kex` (post-quantum names). Only a host reached directly (no jump
    /// host, no ProxyCommand): the hops on the way would need sshelf's own checks, which ssh does not make here.
    public static func fetch(_ plan: ConnectPlan, kex: [String], timeout: Double, workspace: Workspace) throws
        -> HostKey
    {
        let ssh = OpenSSHOptionCheck.sshPath
        let hop = plan.endpoints[plan.endpoints.count - 1]
        let name = Display.safe(hop.name)
        guard access(ssh, X_OK) == 0 else {
            throw ShelfError(
                .failure, "\(name)'s key needs a post-quantum key exchange, and OpenSSH's ssh is not installed",
                hint: "install openssh-client, then try again")
        }
        guard plan.endpoints.count == 1, hop.settings.proxyCommand == nil else {
            throw ShelfError(
                .failure,
                "\(name)'s key needs a post-quantum key exchange, which sshelf reads through OpenSSH's ssh only from "
                    + "a host reached directly (not through a jump host or a ProxyCommand)",
                hint: "pin it while the host allows a classical key exchange (its pq setting off, then sshelf trust "
                    + "\(ShellWord.quote(name)), then require it again)")
        }
        try PrivateFiles.ensureDirectory(workspace.locations.runtimeDirectory)
        let knownHosts =
            workspace.locations.runtimeDirectory + "/trust-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try PrivateFiles.atomicWrite(Data(), to: knownHosts)
        defer { unlink(knownHosts) }
        let address = hop.hostname.isEmpty ? hop.name : hop.hostname
        let seconds = max(1, Int(timeout.rounded(.up)))
        let argv = [
            ssh, "-F", "/dev/null", "-T", "-o", "KexAlgorithms=" + kex.joined(separator: ","),
            "-o", "StrictHostKeyChecking=accept-new", "-o", "UserKnownHostsFile=" + knownHosts,
            "-o", "GlobalKnownHostsFile=/dev/null", "-o", "HashKnownHosts=no", "-o", "UpdateHostKeys=no",
            "-o", "CheckHostIP=no", "-o", "BatchMode=yes", "-o", "IdentityAgent=none",
            "-o", "PubkeyAuthentication=no", "-o", "PasswordAuthentication=no",
            "-o", "KbdInteractiveAuthentication=no", "-o", "GSSAPIAuthentication=no",
            "-o", "HostbasedAuthentication=no", "-o", "ConnectTimeout=\(seconds)", "-o", "LogLevel=ERROR",
            "-p", String(hop.port), "-l", hop.user.isEmpty ? "sshelf" : hop.user, "--", address, "true",
        ]
        let ran = ChildProcess.run(argv, environment: ["PATH": "/usr/bin:/bin"], timeout: Double(seconds) * 3 + 5)
        let text = (try? String(contentsOfFile: knownHosts, encoding: .utf8)) ?? ""
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            guard words.count >= 3, let key = HostKey(type: String(words[1]), base64: String(words[2])) else {
                continue
            }
            try RevokedHostKeysFile.refuseRevokedPin(key, hop: hop)
            return key
        }
        let said = ran.map { String(decoding: $0.stderr, as: UTF8.self) } ?? ""
        let last = said.split(separator: "\n").last.map { Display.safe(String($0.prefix(300))) }
        throw ShelfError(
            .failure,
            "could not read \(name)'s key over a post-quantum key exchange (\(kex.joined(separator: ", ")))"
                + (last.map { ": ssh: \($0)" } ?? ""),
            hint: "a server without a post-quantum key exchange is not reached this way; check the host's address "
                + "and port (sshelf show \(ShellWord.quote(name)))")
    }
}
