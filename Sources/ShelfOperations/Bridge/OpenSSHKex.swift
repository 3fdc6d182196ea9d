// OpenSSHKex: the post-quantum key exchanges the installed OpenSSH ssh has (`ssh -Q kex`: sntrup761x25519 on 9.0 and
// later, mlkem768x25519 on 9.9 and later), asked once per process: what a host with `pq require` is limited to.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfSystem

public enum OpenSSHKex {
    private static let lock = Lock()
    nonisolated(unsafe) private static var asked: [String]?

    /// The post-quantum key exchanges ssh has, strongest first (`preference`); empty when ssh is missing or has none.
    public static func postQuantum() -> [String] {
        lock.lock()
        defer { lock.unlock() }
        if let asked { return asked }
        var found: [String] = []
        if access(OpenSSHOptionCheck.sshPath, X_OK) == 0,
            let output = ChildProcess.run([OpenSSHOptionCheck.sshPath, "-Q", "kex"], environment: [:]),
            output.status == 0
        {
            let names = String(decoding: output.stdout, as: UTF8.self).split(whereSeparator: \.isWhitespace)
                .map(String.init)
            found = preference.filter(names.contains)
        }
        asked = found
        return found
    }

    /// Strongest first: ML-KEM, then sntrup761 under the name every OpenSSH since 9.0 knows, then its later alias.
    static let preference = [
        "mlkem768x25519-sha256", "mlkem1024nistp384-sha384", "mlkem768nistp256-sha256",
        "sntrup761x25519-sha512@openssh.com", "sntrup761x25519-sha512",
    ]

    /// The post-quantum list for a host that requires one, or the error that says this ssh has none (never a
    /// classical key exchange in its place).
    public static func required(for name: String, off: String) throws -> [String] {
        let list = postQuantum()
        guard list.isEmpty else { return list }
        throw ShelfError(
            .failure,
            "'\(Display.safe(name))' requires post-quantum key exchange, and OpenSSH's ssh here has none (ssh -Q kex "
                + "lists neither sntrup761x25519 nor mlkem768x25519)",
            hint: "install OpenSSH 9.0 or later (openssh-client), or allow a classical key exchange: \(off)")
    }
}
