// KeyExchange: which key exchange a session used, and whether it resists a later quantum computer ("store now,
// decrypt later"): the hybrid ones OpenSSH offers (sntrup761x25519 since 9.0, mlkem768x25519 since 9.9). libssh2
// 1.10 and 1.11 have none, so every session of sshelf's own client says which classical one it used.
import FoundationEssentials

public enum KeyExchange {
    /// The post-quantum hybrids by their SSH names.
    public static let postQuantum: Set<String> = [
        "sntrup761x25519-sha512@openssh.com", "sntrup761x25519-sha512", "mlkem768x25519-sha256",
        "mlkem768nistp256-sha256", "mlkem1024nistp384-sha384",
    ]

    public static func isPostQuantum(_ name: String) -> Bool { postQuantum.contains(name) }

    /// Whether an ssh_config line is `KexAlgorithms` with post-quantum names only (no `+`/`-`/`^`, no classical
    /// one): what `export ssh-config` writes for a host that requires post-quantum key exchange, read back as that.
    public static func isPostQuantumOnly(line: String) -> Bool {
        guard let option = SSHOption(line: line), option.key == "kexalgorithms", let value = option.arguments.first,
            option.arguments.count == 1
        else { return false }
        let names = value.split(separator: ",").map(String.init)
        return !names.isEmpty && names.allSatisfy(isPostQuantum)
    }

    /// The name with what it means, for `show`, `connect -v` and the details: `curve25519-sha256 (not
    /// post-quantum)`.
    public static func describe(_ name: String) -> String {
        isPostQuantum(name) ? "\(name) (post-quantum)" : "\(name) (not post-quantum)"
    }

    /// The store setting that keeps a host's last session's key exchange on this device.
    public static func settingKey(_ host: UUID) -> String { "kex.last.\(host.uuidString.lowercased())" }
}
