// VaultSecretInput: where vault commands get secrets — the terminal with echo off, or a numbered file
// descriptor for scripts (--passphrase-fd N, --secret-fd N). Never argv, never the environment.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfVault
#if canImport(Glibc)
import Glibc
#endif

struct SecretInput {
    /// nil: ask on /dev/tty.
    let fd: Int32?
    let option: String

    /// Longest line accepted as a password or passphrase.
    static let maximumLine = 4096

    /// From the descriptor `key` names, parsed and checked open (`ValueKind.descriptor`); not given: the terminal.
    init<O>(_ call: Call<O>, _ key: KeyPath<O, Option<Int32>>) {
        self.init(fd: call[key], option: call.spec(key).name)
    }

    /// One line (without its newline). From a descriptor, successive calls read successive lines.
    func read(prompt: String) throws -> SecretBytes {
        if let fd { return try Self.readLine(fd, echoOffTerminal: false, what: "--\(option) \(fd)") }
        let tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard tty >= 0 else {
            throw ShelfError(
                .usage, "no terminal to ask for the \(prompt.lowercased().trimmingScalars(in: ": "))",
                hint: "give it on a file descriptor: --\(option) N")
        }
        defer { close(tty) }
        var saved = termios()
        let isTerminal = tcgetattr(tty, &saved) == 0
        if isTerminal {
            var silent = saved
            silent.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(tty, TCSAFLUSH, &silent)
        }
        defer {
            if isTerminal { tcsetattr(tty, TCSAFLUSH, &saved) }
            _ = write(tty, "\n", 1)
        }
        _ = prompt.withCString { write(tty, $0, strlen($0)) }
        return try Self.readLine(tty, echoOffTerminal: true, what: "the terminal")
    }

    /// The vault passphrase: from a descriptor it is read once per process and kept (in guarded memory) for every
    /// later ask — a login that renews a certificate first and then reads a vault credential asks twice, and the
    /// descriptor holds one line. From the terminal it is asked each time.
    func readVaultPassphrase(prompt: String) throws -> SecretBytes {
        guard let fd else { return try read(prompt: prompt) }
        return try Self.kept.value(for: fd) { try read(prompt: prompt) }
    }

    /// Vault passphrases read from descriptors in this process, by descriptor.
    private static let kept = KeptSecrets()

    /// A new secret typed twice on the terminal; read once from a descriptor.
    func readNew(prompt: String, confirm: String) throws -> SecretBytes {
        let first = try read(prompt: prompt)
        guard !first.isEmpty else { throw ShelfError(.invalid, "empty input; nothing changed") }
        if fd == nil {
            let second = try read(prompt: confirm)
            guard first.isEqual(to: second) else {
                throw ShelfError(.invalid, "the two entries differ; nothing changed")
            }
        }
        return first
    }

    /// Reads byte by byte into guarded memory, so nothing past the newline is consumed and no copy of the
    /// secret sits in a Swift string or a stdio buffer.
    private static func readLine(_ fd: Int32, echoOffTerminal: Bool, what: String) throws -> SecretBytes {
        let buffer = SecretBytes(count: maximumLine)
        var length = 0
        while true {
            let got = buffer.withUnsafeMutableBytes { bytes in
                length < bytes.count ? Glibc.read(fd, bytes.baseAddress! + length, 1) : -2
            }
            if got == -1 && errno == EINTR { continue }
            if got == -2 {
                throw ShelfError(.invalid, "the line read from \(what) is longer than \(maximumLine) bytes")
            }
            if got < 0 { throw ShelfError(.failure, "cannot read from \(what): \(String(cString: strerror(errno)))") }
            if got == 0 { break }
            let byte = buffer.withUnsafeBytes { $0[length] }
            if byte == 0x0a { break }
            length += 1
        }
        if length > 0, buffer.withUnsafeBytes({ $0[length - 1] }) == 0x0d { length -= 1 }
        return buffer.prefix(length)
    }
}

extension SecretInput {
    /// Reads from the terminal (fd nil) or a given descriptor, outside a parsed command line.
    init(fd: Int32?, option: String) {
        self.fd = fd
        self.option = option
    }
}

/// Secrets kept for the life of the process, one per descriptor; each caller gets its own copy (a caller may wipe it).
final class KeptSecrets: @unchecked Sendable {
    private let lock = Lock()
    private var secrets: [Int32: SecretBytes] = [:]

    func value(for fd: Int32, read: () throws -> SecretBytes) throws -> SecretBytes {
        try lock.withLock {
            let secret = try secrets[fd] ?? read()
            secrets[fd] = secret
            return secret.withUnsafeBytes { SecretBytes(copying: $0) }
        }
    }
}
