// HostOptionSources: a host's kept ssh_config options as they apply to it — its own, then those of each defaults
// block (`Host prod-*`, `Host *`) that matches it — each with where it comes from and what sshelf's own client makes
// of it. The one computation `sshelf show` and the TUI's details pane both print.
import FoundationEssentials

public struct HostOptionLine: Sendable, Equatable {
    public enum Origin: Sendable, Equatable {
        /// The host's own options.
        case host
        /// A defaults block (its `Host` pattern as written).
        case pattern(String)
    }

    /// Why a line does not take effect as written in sshelf's own client (nil: it does).
    public enum Note: Sendable, Equatable {
        /// An earlier line with the same keyword wins (ssh takes the first value).
        case earlierValueWins
        /// Only OpenSSH's ssh can do it (`sshelf connect NAME --openssh`).
        case openSSHOnly
        /// sshelf cannot read the value.
        case unreadable
        /// The installed ssh refuses the line (an unknown keyword, a bad value), in its words: neither client
        /// applies it, and the ssh_config bridge leaves it out.
        case refused(String)
    }

    /// The line as written (`ServerAliveInterval 30`).
    public var text: String
    public var origin: Origin
    public var note: Note?
}

public enum HostOptionSources {
    /// Every option line that applies to `host`, in the order ssh reads them (first value wins).
    /// `refused`: the lines the installed ssh refuses, with its words (`RefusedOptions` asks it).
    public static func lines(host: Host, defaults: [OptionDefaults], refused: [String: String] = [:])
        -> [HostOptionLine]
    {
        let matching = defaults.filter { $0.matches(host.name) }
        let settings = HostSettings.read(HostSettings.options(for: host, defaults: defaults))
        var seen: Set<String> = []
        func line(_ text: String, _ origin: HostOptionLine.Origin) -> HostOptionLine {
            guard let option = SSHOption(line: text) else { return HostOptionLine(text: text, origin: origin) }
            var note: HostOptionLine.Note?
            if !SSHOption.accumulating.contains(option.key), !seen.insert(option.key).inserted {
                note = .earlierValueWins
            } else if let why = refused[text] {
                note = .refused(why)
            } else if settings.unsupported.contains(option.keyword) {
                note = .openSSHOnly
            } else if settings.invalid.contains(where: { $0.hasPrefix(option.line + ":") }) {
                note = .unreadable
            }
            return HostOptionLine(text: option.line, origin: origin, note: note)
        }
        return host.options.map { line($0, .host) }
            + matching.flatMap { block in block.options.map { line($0, .pattern(block.pattern)) } }
    }

    /// The note in words, for a host named `name` ("OpenSSH only: sshelf connect web --openssh").
    public static func words(_ note: HostOptionLine.Note, hostName name: String) -> String {
        switch note {
        case .earlierValueWins: "an earlier value wins"
        case .openSSHOnly: "OpenSSH only: sshelf connect \(ShellWord.quote(name)) --openssh"
        case .unreadable: "sshelf cannot read this value"
        case .refused(let why): refusedWords(why)
        }
    }

    /// What a line the installed ssh refuses is, after the line itself: the same words in the import's warning, the
    /// bridge's, `check` and `show`.
    public static func refusedWords(_ why: String) -> String {
        "ssh refuses it (\(why)), so the ssh_config bridge leaves it out"
    }
}
