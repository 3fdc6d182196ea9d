// AuthorizedKeyInstall: an identity's public key appended to a host's ~/.ssh/authorized_keys over sshelf's own
// logged-in connection (`sshelf copy-id`, and the TUI's `c`). The key travels on the remote command's stdin and the
// remote script is a constant, so no key comment can be read as shell syntax; `~/.ssh` is made 0700 and the file
// 0600 when missing, and a key already there (same key material, whatever its options or comment) is not added
// again.
import FoundationEssentials
import ShelfCore
import ShelfSSH
import ShelfSystem
import ShelfVault

#if canImport(Glibc)
import Glibc
#endif

public enum AuthorizedKeyInstall {
    /// Reads the key line on stdin; prints `present` or `added`. One line, POSIX sh, no single quote or `!`, so it
    /// survives any login shell (sh, bash, zsh, fish, csh) as `sh -c '…'`.
    static let remoteScript = [
        "set -f", "umask 077",
        "IFS= read -r k || [ -n \"$k\" ] || exit 3",
        "set -- $k", "[ $# -ge 2 ] || exit 3", "b=$2",
        "d=\"${HOME:?}/.ssh\"", "f=\"$d/authorized_keys\"",
        "[ -d \"$d\" ] || mkdir -m 700 \"$d\" || exit 4",
        "p=",
        "if [ -f \"$f\" ]; then while IFS= read -r l || [ -n \"$l\" ]; do set -- $l; for w; do [ \"$w\" = \"$b\" ] && "
            + "p=1; done; done < \"$f\"; fi",
        "if [ -n \"$p\" ]; then echo present; exit 0; fi",
        "if [ -s \"$f\" ] && [ -n \"$(tail -c 1 \"$f\")\" ]; then echo >> \"$f\" || exit 5; fi",
        "printf \"%s\\n\" \"$k\" >> \"$f\" || exit 5",
        "echo added",
    ].joined(separator: "; ")

    static var remoteCommand: String { "exec sh -c '\(remoteScript)'" }

    /// The identity to install and its line, checked before anything connects.
    public static func keyLine(for identity: Identity) throws -> String {
        guard SSHPublicKey.blob(fromLine: identity.publicKey) != nil else {
            throw ShelfError(
                .invalid, "identity '\(Display.safe(identity.name))' has no usable public key recorded",
                hint: "import its key again: sshelf identity import \(Display.safe(identity.name)) FILE")
        }
        return identity.publicKey
    }

    /// What the remote side answered, in words.
    public enum Outcome: Equatable, Sendable {
        case added, present
        case failed(String)
    }

    /// Runs the script on a logged-in connection with `line` on its stdin.
    public static func install(_ line: String, on connection: SSHConnection) throws(SSHError) -> Outcome {
        var channel: [Int32] = [-1, -1]
        guard CloseOnExec.pipe(&channel) == 0 else { return .failed("pipe: \(String(cString: strerror(errno)))") }
        let bytes = Array((line + "\n").utf8)
        let written = bytes.withUnsafeBytes { write(channel[1], $0.baseAddress, $0.count) }
        close(channel[1])
        defer { close(channel[0]) }
        guard written == bytes.count else { return .failed("could not hand the key to the remote command") }
        var output: [UInt8] = []
        var errors: [UInt8] = []
        let exit = try connection.exec(
            remoteCommand, input: channel[0], stdout: { output += $0 }, stderr: { errors += $0 })
        let said = String(decoding: output, as: UTF8.self).trimmingSpacesAndNewlines()
        if exit.exitCode == 0 && said == "added" { return .added }
        if exit.exitCode == 0 && said == "present" { return .present }
        let reason: String
        switch exit.exitCode {
        case 3: reason = "the remote side did not receive the key line"
        case 4: reason = "could not create ~/.ssh"
        case 5: reason = "could not write ~/.ssh/authorized_keys"
        default: reason = "the remote command ended with status \(exit.exitCode)"
        }
        let detail = String(decoding: errors.prefix(400), as: UTF8.self).trimmingSpacesAndNewlines()
        return .failed(reason + (detail.isEmpty ? "" : ": " + UntrustedText.clean(detail)))
    }
}
