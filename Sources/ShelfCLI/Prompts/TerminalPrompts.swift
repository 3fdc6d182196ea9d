// TerminalPrompts: the CLI's ConnectDelegate — host-key questions and password/keyboard-interactive prompts on
// /dev/tty with echo off, or a password read once from --password-fd (never argv or the environment).
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfOperations
import ShelfSSH

public final class TerminalPrompts: ConnectDelegate {
    /// `--accept-new`: accept and remember keys of hosts we know nothing about (never other-type or changed keys).
    let acceptNew: Bool
    /// `--password-fd N`: the password is the first line read from N; it answers one prompt only.
    private var passwordFD: Int32?
    /// `--remember`: true keeps a given password in the vault; nil asks on the terminal; false never keeps it.
    private let remember: Bool?
    private let errorOutput: (String) -> Void
    /// The other hosts that have this key pinned (their names), for OpenSSH's "known by other names" note.
    private let otherNames: (HostKeyQuestion) -> [String]

    public init(
        acceptNew: Bool, passwordFD: Int32?, remember: Bool?, errorOutput: @escaping (String) -> Void,
        otherNames: @escaping (HostKeyQuestion) -> [String] = { _ in [] }
    ) {
        self.acceptNew = acceptNew
        self.passwordFD = passwordFD
        self.remember = remember
        self.errorOutput = errorOutput
        self.otherNames = otherNames
    }

    /// As OpenSSH says it when a new name's key is one it already knows: the same machine under another name.
    func alsoKnownAs(_ question: HostKeyQuestion) -> String {
        let names = otherNames(question)
        guard !names.isEmpty else { return "" }
        return "This host key is known by the following other names/addresses:\n"
            + names.map { "    sshelf: \(Display.safe($0))\n" }.joined()
    }

    /// The server's login banner (sshd's `Banner`) goes to standard error before the session starts, as OpenSSH
    /// prints it; ShelfSSH has already removed its control characters.
    /// A host key a CA vouched for is said, with the certificate: no pin or known key stands behind it.
    public func note(_ event: ConnectEvent) {
        switch event {
        case .banner(_, let text):
            errorOutput(text.hasSuffix("\n") ? text : text + "\n")
        case .hostKeyVerified(let hop, let fingerprint, let source) where source.hasPrefix("a host certificate"):
            errorOutput(
                "sshelf: note: the host key of \(Display.safe(hop)) (\(fingerprint)) is vouched for by \(source)\n")
        default:
            break
        }
    }

    public func decide(_ question: HostKeyQuestion) -> HostKeyDecision {
        if acceptNew, question.reason == .unknown {
            errorOutput(
                "sshelf: warning: accepting new host key of \(Display.safe(question.hopName)): \(question.key.type) "
                    + "\(question.fingerprint)\n")
            let names = otherNames(question)
            if !names.isEmpty {
                errorOutput(
                    "sshelf: note: this host key is also known as "
                        + "\(names.map { "'\(Display.safe($0))'" }.joined(separator: ", ")) (pinned for "
                        + "\(names.count == 1 ? "that host" : "those hosts"))\n")
            }
            return .acceptAndRemember
        }
        guard let tty = TTY.open() else { return .refuse }
        defer { tty.close() }
        var text = ""
        switch question.reason {
        case .unknown:
            text =
                "The authenticity of host '\(question.lookupName)' (\(Display.safe(question.hopName))) can't "
                + "be established.\n"
        case .otherType(let types, let source):
            text =
                "WARNING: \(Display.safe(question.hopName)) now offers \(KeyTypeArticle.with(question.key.type)) key; "
                + "\(source.rawValue) knows it only as \(types.joined(separator: ", ")).\n"
        }
        text += "\(question.key.type) key fingerprint is \(question.fingerprint).\n"
        text += alsoKnownAs(question)
        text += "Are you sure you want to continue connecting (yes/no)? "
        tty.write(text)
        let answer = tty.readLine(echo: true).trimmingSpaces().lowercased()
        return answer == "yes" ? .acceptAndRemember : .refuse
    }

    public func askPassword(_ request: PasswordRequest) -> PasswordAnswer? {
        if let secret = takeFromFD() {
            return PasswordAnswer(password: secret, remember: request.canRemember && remember == true)
        }
        if passwordFD == -1 { return nil }
        guard let tty = TTY.open() else { return nil }
        defer { tty.close() }
        if request.attempt > 1 { tty.write("Permission denied, please try again.\n") }
        if let note = request.note { tty.write("(\(Display.safe(note)))\n") }
        tty.write("\(request.destination)'s password: ")
        guard let secret = tty.readSecret() else { return nil }
        var keep = request.canRemember && remember == true
        if request.canRemember && remember == nil {
            // The envelope's "remember" gate: asked here, stored only after the password logged in.
            tty.write("Remember this password in the vault? [y/N] ")
            keep = tty.readLine(echo: true).trimmingSpaces().lowercased().hasPrefix("y")
        }
        return PasswordAnswer(password: secret, remember: keep)
    }

    public func askKeyPassphrase(_ request: KeyPassphraseRequest) -> SecretBytes? {
        guard let tty = TTY.open() else { return nil }
        defer { tty.close() }
        tty.write("Enter passphrase for the key of identity '\(Display.safe(request.keyDescription))': ")
        return tty.readSecret()
    }

    /// The key passphrase, and — like a password — whether to keep it in the vault (`--remember`, or asked).
    public func askKeyPassphraseToKeep(_ request: KeyPassphraseRequest) -> PasswordAnswer? {
        guard let passphrase = askKeyPassphrase(request) else { return nil }
        var keep = request.canRemember && remember == true
        if request.canRemember && remember == nil, let tty = TTY.open() {
            defer { tty.close() }
            tty.write("Remember this key passphrase in the vault? [y/N] ")
            keep = tty.readLine(echo: true).trimmingSpaces().lowercased().hasPrefix("y")
        }
        return PasswordAnswer(password: passphrase, remember: keep)
    }

    public func answer(_ challenge: KeyboardChallenge) -> [SecretBytes]? {
        // A single hidden prompt is a password prompt: --password-fd may answer it.
        if challenge.prompts.count == 1, !challenge.prompts[0].echo, let secret = takeFromFD() { return [secret] }
        if passwordFD == -1 { return nil }
        guard let tty = TTY.open() else { return nil }
        defer { tty.close() }
        if !challenge.name.isEmpty { tty.write(challenge.name + "\n") }
        if !challenge.instruction.isEmpty { tty.write(challenge.instruction + "\n") }
        var answers: [SecretBytes] = []
        for prompt in challenge.prompts {
            tty.write(prompt.text)
            if prompt.echo {
                var bytes = Array(tty.readLine(echo: true).utf8)
                answers.append(SecretBytes.take(&bytes))
            } else {
                guard let secret = tty.readSecret() else { return nil }
                answers.append(secret)
            }
        }
        return answers
    }

    /// The --password-fd answer, once; afterwards the descriptor is spent (-1) so a rejected password is final.
    private func takeFromFD() -> SecretBytes? {
        guard let fd = passwordFD, fd >= 0 else { return nil }
        passwordFD = -1
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(fd, &byte, 1) == 1 {
            if byte == 0x0A { break }
            bytes.append(byte)
        }
        if bytes.last == 0x0D { bytes.removeLast() }
        byte = 0
        return SecretBytes.take(&bytes)
    }
}

/// The controlling terminal, opened for each question so prompts work even when stdin/stdout are redirected.
public final class TTY {
    private let fd: Int32

    private init(fd: Int32) { self.fd = fd }

    public static func open() -> TTY? {
        let fd = Glibc.open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        return fd >= 0 ? TTY(fd: fd) : nil
    }

    public func close() { _ = Glibc.close(fd) }

    public func write(_ text: String) {
        var text = text
        text.withUTF8 { _ = Glibc.write(fd, $0.baseAddress, $0.count) }
    }

    public func readLine(echo: Bool) -> String {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while Glibc.read(fd, &byte, 1) == 1 && byte != 0x0A && byte != 0x0D { bytes.append(byte) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Reads a line with echo off; the terminal's settings come back even if reading fails.
    func readSecret() -> SecretBytes? {
        var original = termios()
        let isTerminal = tcgetattr(fd, &original) == 0
        if isTerminal {
            var quiet = original
            quiet.c_lflag &= ~tcflag_t(ECHO)
            _ = tcsetattr(fd, TCSAFLUSH, &quiet)
        }
        defer {
            if isTerminal { _ = tcsetattr(fd, TCSAFLUSH, &original) }
            write("\n")
        }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = Glibc.read(fd, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            if count != 1 { return nil }
            if byte == 0x0A || byte == 0x0D { break }
            bytes.append(byte)
        }
        byte = 0
        return SecretBytes.take(&bytes)
    }
}
