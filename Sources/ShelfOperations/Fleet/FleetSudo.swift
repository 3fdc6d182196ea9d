// FleetSudo: `run --sudo` — the command run as `sudo -p MARKER -- sh -c COMMAND` on a terminal (PTY), MARKER a
// random word made for the run, so the password prompt is known by what sshelf told sudo to print, not guessed from
// a host's output (a prompt's wording varies with the language and the sudo version; any output could imitate it).
// The password, asked once on sshelf's own terminal, stays in guarded memory for the run only, and is typed only
// into the terminal of a host whose key was verified and whose sudo printed the marker: a host where sudo does not
// ask (NOPASSWD, a recent login) gets nothing. Asked again (a wrong password), sshelf types Ctrl-C instead.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfSSH
import ShelfSystem

public final class FleetSudo: @unchecked Sendable {
    /// What sudo prints as its prompt: nothing a host could know before the run (and no `%`, which sudo expands).
    public let marker: String
    private let password: SecretBytes

    public init(password: SecretBytes) {
        self.password = password
        var generator = SystemRandomNumberGenerator()
        let word = (0..<4).map { _ in String(generator.next() as UInt32, radix: 16) }.joined()
        marker = "[sshelf-sudo-\(word)] "
    }

    /// The remote command line: the user's command under sudo, in sh as the login shell would have run it.
    public func command(_ command: String) -> String {
        "sudo -p \(ShellWord.quote(marker)) -- sh -c \(ShellWord.quote(command))"
    }

    /// Types the password and a newline into `fd` (the command's terminal input).
    public func type(into fd: Int32) {
        _ = password.withUnsafeBytes { bytes in FileOutput.writeAll(fd, bytes) }
        var newline: UInt8 = 0x0A
        _ = write(fd, &newline, 1)
    }
}

/// Finds the marker in a host's terminal output, split across chunks or not, and takes it out of what is kept.
public struct PromptWatch: Sendable {
    private let marker: [UInt8]
    private var held: [UInt8] = []

    public init(marker: String) { self.marker = Array(marker.utf8) }

    /// The output with every whole marker taken out (the end of a chunk that may begin one is held back), and
    /// how many markers there were.
    public mutating func feed(_ chunk: UnsafeRawBufferPointer) -> (output: [UInt8], prompts: Int) {
        var data = held
        held = []
        data.append(contentsOf: chunk)
        var output: [UInt8] = []
        output.reserveCapacity(data.count)
        var prompts = 0
        var index = 0
        while index < data.count {
            if data[index] == marker[0], data.count - index >= marker.count,
                data[index..<index + marker.count].elementsEqual(marker)
            {
                prompts += 1
                index += marker.count
                continue
            }
            if data[index] == marker[0], data.count - index < marker.count,
                marker.starts(with: data[index...])
            {
                held = Array(data[index...])
                break
            }
            output.append(data[index])
            index += 1
        }
        return (output, prompts)
    }

    /// The end of the output: what was held back was not a marker after all.
    public mutating func finish() -> [UInt8] {
        defer { held = [] }
        return held
    }
}
