// RevokedHostKeysFile: a hop's `RevokedHostKeys` file (a KRL or a list of public keys) read for its host-key check.
// A file that cannot be read or understood is a refusal, as in OpenSSH: a revocation list that silently vouches for
// everything would be worse than none.
import FoundationEssentials
import ShelfCore
import ShelfSystem

public enum RevokedHostKeysFile {
    /// The revocations `hop` names (nil: it names no file).
    static func load(_ hop: SSHEndpoint) throws(SSHError) -> HostKeyRevocations? {
        guard let given = hop.settings.revokedHostKeys else { return nil }
        var path = given
        if path.hasPrefix("~/"), let home = ProcessInfo.processInfo.environment["HOME"], !home.isEmpty {
            path = home + path.dropFirst(1)
        }
        let why: String
        do {
            let bytes = [UInt8](try RegularFile.read(path, limit: 64 * 1024 * 1024))
            if let revocations = HostKeyRevocations.parse(bytes) { return revocations }
            why = "it is neither a KRL nor a list of public keys"
        } catch {
            why = "\(error)"
        }
        throw SSHError(
            .hostKeyRevoked,
            "cannot use RevokedHostKeys \(given) of \(hop.name): \(why); not connecting, nothing was sent",
            hint: "fix or remove the file (ssh-keygen -k -f FILE KEY... writes a KRL)")
    }

    static func revoked(hop: SSHEndpoint, key: HostKey) -> SSHError {
        SSHError(
            .hostKeyRevoked,
            "the host key of \(hop.name) (\(key.type) \(key.fingerprint)) is revoked in RevokedHostKeys "
                + "\(hop.settings.revokedHostKeys ?? ""); nothing was sent",
            hint: "the key was revoked on purpose: contact the server's administrator")
    }

    /// For `sshelf trust`: refuses to offer `key` for pinning when `hop`'s RevokedHostKeys revokes it (or the file
    /// cannot be used), naming the file — a revoked key pinned would be trusted by everything that reads the pins.
    public static func refuseRevokedPin(_ key: HostKey, hop: SSHEndpoint) throws(SSHError) {
        guard try load(hop)?.revokes(key: key.blob) == true else { return }
        let file = hop.settings.revokedHostKeys ?? ""
        throw SSHError(
            .hostKeyRevoked,
            "the host key of \(hop.name) (\(key.type) \(key.fingerprint)) is revoked in RevokedHostKeys \(file); "
                + "it is not offered for pinning, nothing was pinned",
            hint: "the key was revoked on purpose: ask the server's administrator for its new key (remove it from "
                + "\(file) only if it was revoked by mistake)")
    }
}
