// SSHParentInvocation: the ssh that ran the bridge's unlock guard, read from /proc — OpenSSH runs a `Match exec`
// command through `$SHELL -c` (which may exec it directly), with stdin and stdout on /dev/null and its own stderr,
// and runs it for `ssh -G` too. The guard asks for nothing when ssh only prints its configuration (-G) or talks
// to a master (-O), and keeps off the terminal and askpass when ssh was told BatchMode=yes on its command line.
import FoundationEssentials
import Glibc

public struct SSHParentInvocation: Equatable, Sendable {
    /// `ssh -G` or `-O`: nothing will connect, so nothing is asked and nothing is printed.
    public var onlyInspects = false
    /// `-o BatchMode=yes` (any spelling ssh reads): no question on the terminal or through askpass.
    public var batchMode = false

    public init(onlyInspects: Bool = false, batchMode: Bool = false) {
        self.onlyInspects = onlyInspects
        self.batchMode = batchMode
    }

    /// ssh's (9.2) option letters that take an argument; every other letter is a flag.
    static let withArgument = Set("BbcDEeFIiJLlmOoPpQRSWw")

    /// Reads ssh's arguments as its getopt does, up to the destination.
    public static func parse(_ arguments: [String]) -> SSHParentInvocation {
        var found = SSHParentInvocation()
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            index += 1
            if word == "--" { break }
            guard word.hasPrefix("-"), word.count > 1 else { break }
            var letters = Substring(word.dropFirst())
            while let letter = letters.first {
                letters = letters.dropFirst()
                if letter == "G" || letter == "O" { found.onlyInspects = true }
                guard withArgument.contains(letter) else { continue }
                let value: String
                if !letters.isEmpty {
                    value = String(letters)
                } else if index < arguments.count {
                    value = arguments[index]
                    index += 1
                } else {
                    value = ""
                }
                if letter == "O" { found.onlyInspects = true }
                if letter == "o", isBatchMode(value) { found.batchMode = true }
                break
            }
        }
        return found
    }

    /// `BatchMode=yes`, `batchmode yes`, `BatchMode = "yes"`: what ssh's option reader takes (first value wins).
    static func isBatchMode(_ option: String) -> Bool {
        let lowered = option.lowercased().drop { $0 == " " || $0 == "\t" }
        guard lowered.hasPrefix("batchmode") else { return false }
        let value = lowered.dropFirst("batchmode".count).filter { $0 != " " && $0 != "\t" && $0 != "=" && $0 != "\"" }
        return value == "yes"
    }

    /// The ssh among this process's parent and grandparent (the shell ssh started may have exec'd us, or not); nil
    /// when neither is ssh (the guard run by hand).
    public static func current() -> SSHParentInvocation? {
        var pid = getppid()
        for _ in 0..<2 {
            guard pid > 1 else { return nil }
            if let arguments = arguments(of: pid), let program = arguments.first,
                program.split(separator: "/").last == "ssh"
            {
                return parse(Array(arguments.dropFirst()))
            }
            guard let parent = parentPID(of: pid) else { return nil }
            pid = parent
        }
        return nil
    }

    static func arguments(of pid: pid_t) -> [String]? {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"), !data.isEmpty else { return nil }
        return data.split(separator: 0, omittingEmptySubsequences: false).dropLast().map {
            String(decoding: $0, as: UTF8.self)
        }
    }

    static func parentPID(of pid: pid_t) -> pid_t? {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/stat") else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        // `pid (comm) state ppid …`: comm may hold spaces and parentheses, so read after the last ')'.
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        return fields.count > 1 ? pid_t(fields[1]) : nil
    }
}
