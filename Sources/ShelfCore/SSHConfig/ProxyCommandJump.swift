// ProxyCommandJump: recognises the ProxyCommand that is only a jump host written the old way —
// `ssh [-q] -W %h:%p HOST` (and `ssh -J A,B -W %h:%p HOST`) — so an import can make it a jump chain. Anything else
// (another program, a user or port on the command line, other options) is a real ProxyCommand and stays one.
import FoundationEssentials

public enum ProxyCommandJump {
    /// The jump hosts the command names, outermost first; nil when it is not that form.
    public static func hosts(_ command: String) -> [String]? {
        guard var words = SSHOption(keyword: "ProxyCommand", value: command).argumentsForJump, !words.isEmpty else {
            return nil
        }
        if words.first == "exec" { words.removeFirst() }
        guard let program = words.first, program == "ssh" || program.hasSuffix("/ssh") else { return nil }
        var forwardsToTarget = false
        var via: [String] = []
        var target: String? = nil
        var index = 1
        while index < words.count {
            let word = words[index]
            index += 1
            if word == "-W" || word.hasPrefix("-W") {
                let value = word == "-W" ? (index < words.count ? words[index] : "") : String(word.dropFirst(2))
                if word == "-W" { index += 1 }
                guard value == "%h:%p" || value == "[%h]:%p" else { return nil }
                forwardsToTarget = true
            } else if word == "-J" || (word.hasPrefix("-J") && word.count > 2) {
                let value = word == "-J" ? (index < words.count ? words[index] : "") : String(word.dropFirst(2))
                if word == "-J" { index += 1 }
                let names = value.split(separator: ",").map(String.init)
                guard !names.isEmpty, names.allSatisfy(isPlainAlias) else { return nil }
                via += names
            } else if word.hasPrefix("-") {
                // Flags that change nothing about where the connection goes.
                guard word.count > 1, word.dropFirst().allSatisfy({ "qTxa46C".contains($0) }) else { return nil }
            } else {
                guard target == nil, isPlainAlias(word) else { return nil }
                target = word
            }
        }
        guard forwardsToTarget, let target else { return nil }
        return via + [target]
    }

    /// The import summary's line for a host whose `ProxyCommand` line became its jump chain: the change is said, with
    /// the line it replaced.
    public static func note(alias: String, location: String, command: String) -> String {
        let jumps = SSHOption(line: command).flatMap { hosts($0.value) } ?? []
        return "\(location): host '\(alias)': '\(command)' became its jump chain (ProxyJump "
            + "\(jumps.joined(separator: ","))): sshelf's own client connects through it, export writes ProxyJump"
    }

    /// A bare host alias: no user, port, pattern or %-token.
    static func isPlainAlias(_ word: String) -> Bool {
        !word.isEmpty && !word.contains(where: { "@:%*?!,/[]".contains($0) || $0.isWhitespace })
    }
}

extension SSHOption {
    /// The value split into words, or nil when it cannot be read (an unterminated quote).
    var argumentsForJump: [String]? {
        (try? SSHConfigLexer.lex(Substring("x " + value), file: "", number: 0))?.arguments.array
    }
}
