// OpenSSHOptionCheck: asks the installed ssh which option lines it refuses (an unknown keyword such as macOS's
// UseKeychain, a bad value), in one `ssh -G` run over a scratch file of those lines; ssh names each bad line. Used
// before a line is saved (`--option`) and before the bridge is written, since one refused line in a file ssh reads
// stops every ssh command. Without an ssh installed there is nothing to break and nothing is refused.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfSystem

public enum OpenSSHOptionCheck {
    public static let sshPath = "/usr/bin/ssh"

    /// Which ssh is installed (its size and change time, read without running it): part of what a saved answer
    /// depends on, so an upgraded ssh is asked again.
    public static var version: String {
        var info = stat()
        guard stat(sshPath, &info) == 0 else { return "no ssh" }
        return "\(info.st_size) \(info.st_ctim.tv_sec)"
    }

    /// Each line ssh refuses, with ssh's own words; the rest are fine. `scratch` is a private folder for the file.
    public static func refused(_ lines: [String], scratch: String) -> [String: String] {
        guard !lines.isEmpty, access(sshPath, X_OK) == 0 else { return [:] }
        let file = scratch + "/.option-check-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        guard (try? PrivateFiles.atomicWrite(Data(lines.map { $0 + "\n" }.joined().utf8), to: file)) != nil else {
            return [:]
        }
        defer { unlink(file) }
        guard let output = ChildProcess.run([sshPath, "-G", "-F", file, "sshelf-option-check"], environment: [:]) else {
            return [:]
        }
        guard output.status != 0 else { return [:] }
        var refused: [String: String] = [:]
        for message in messages(output.stderr) {
            // "FILE line N: why" or "FILE: line N: Bad configuration option: x"
            guard let range = message.firstRange(of: file), let number = lineNumber(message[range.upperBound...]),
                (1...lines.count).contains(number.value)
            else { continue }
            refused[lines[number.value - 1]] = String(number.rest).trimmingSpaces()
        }
        if refused.isEmpty {
            // ssh stopped without naming a line (a fatal error): ask about each line on its own.
            for line in lines {
                if let why = refusal(line) { refused[line] = why }
            }
        }
        return refused
    }

    /// ssh's words about one line given as `-o`, or nil when it takes it.
    public static func refusal(_ line: String) -> String? {
        guard access(sshPath, X_OK) == 0,
            let output = ChildProcess.run(
                [sshPath, "-G", "-F", "/dev/null", "-o", line, "sshelf-option-check"],
                environment: [:]),
            output.status != 0
        else { return nil }
        let text = messages(output.stderr).first ?? "refused"
        // "command-line line 0: why" or "command-line: line 0: why": the line is ours, the why is ssh's.
        guard let range = text.firstRange(of: "line 0: ") else { return text }
        return String(text[range.upperBound...])
    }

    /// ssh's words about a whole config file it cannot read (`ssh -G -F FILE`), or nil when it reads it (or no ssh
    /// is installed: then nothing can break).
    public static func fileRefusal(_ path: String) -> String? {
        guard access(sshPath, X_OK) == 0,
            let output = ChildProcess.run(
                [sshPath, "-G", "-F", path, "sshelf-bridge-check.invalid"], environment: [:]),
            output.status != 0
        else { return nil }
        return messages(output.stderr).joined(separator: "; ")
    }

    /// ssh's messages, one per line (it ends them with CR LF; split on the bytes, not on Characters).
    static func messages(_ bytes: [UInt8]) -> [String] {
        bytes.split(separator: 0x0A).map { line in
            String(decoding: line.filter { $0 != 0x0D }, as: UTF8.self)
        }.filter { !$0.isEmpty }
    }

    private static func lineNumber(_ text: Substring) -> (value: Int, rest: Substring)? {
        var rest = text.drop { $0 == ":" || $0 == " " }
        guard rest.hasPrefix("line ") else { return nil }
        rest = rest.dropFirst(5)
        let digits = rest.prefix { $0.isASCII && $0.isNumber }
        guard let value = Int(digits) else { return nil }
        return (value, rest.dropFirst(digits.count).drop { $0 == ":" })
    }
}
