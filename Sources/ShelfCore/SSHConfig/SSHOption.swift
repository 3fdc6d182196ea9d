// SSHOption: one ssh_config option line that sshelf keeps but does not model ("ServerAliveInterval 30"), as the
// user wrote it: the keyword, then the rest of the line verbatim. Hosts and defaults blocks hold them in order;
// import, export and the bridge carry them; sshelf's own client reads the ones it can honour (HostSettings).
import FoundationEssentials

public struct SSHOption: Hashable, Sendable, CustomStringConvertible {
    /// The keyword as written (`ServerAliveInterval`).
    public var keyword: String
    /// Everything after the keyword and its separator, as written (quotes and all).
    public var value: String

    public init(keyword: String, value: String) {
        self.keyword = keyword
        self.value = value
    }

    /// Splits a stored or typed line: `Keyword value`, `Keyword=value` or `Keyword = value`. Nil without a keyword.
    public init?(line: String) {
        let trimmed = line.trimmingSpaces()
        guard let end = trimmed.firstIndex(where: { $0 == " " || $0 == "\t" || $0 == "=" }) else {
            guard !trimmed.isEmpty else { return nil }
            self.init(keyword: trimmed, value: "")
            return
        }
        var rest = trimmed[end...].drop { $0 == " " || $0 == "\t" }
        if rest.first == "=" { rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" } }
        guard end > trimmed.startIndex else { return nil }
        self.init(keyword: String(trimmed[..<end]), value: String(rest))
    }

    /// The keyword lower-cased (keywords are case-insensitive).
    public var key: String { keyword.lowercased() }
    /// The line as stored and written to a config: `Keyword value`.
    public var line: String { value.isEmpty ? keyword : "\(keyword) \(value)" }
    public var description: String { line }

    /// The value split into words as OpenSSH reads them (quotes removed); empty when the value cannot be read.
    public var arguments: [String] {
        (try? SSHConfigLexer.lex(Substring("x " + value), file: "", number: 0))?.arguments.array ?? []
    }

    /// The first word, lower-cased (`yes`, `no`, `accept-new`…).
    public var firstWord: String { arguments.first?.lowercased() ?? "" }

    /// Keywords sshelf models as fields of its own (or that structure a file): never kept as options.
    public static let modelled: Set<String> = [
        "host", "match", "include", "hostname", "user", "port", "proxyjump", "localforward", "remoteforward",
        "dynamicforward",
    ]

    /// Keywords whose every line counts (OpenSSH accumulates them); for all others the first value wins — SetEnv,
    /// CanonicalDomains, PermitRemoteOpen and IgnoreUnknown too: ssh (readconf.c) takes only the first line of each
    /// (`ssh -G` of `SetEnv A=1` then `SetEnv B=2` says `setenv A=1`).
    public static let accumulating: Set<String> = [
        "identityfile", "certificatefile", "localforward", "remoteforward", "dynamicforward", "sendenv",
    ]

    /// Keywords a host models as fields but a `Host` pattern block keeps as lines (`Host prod-*` / `User deploy`):
    /// a pattern has no fields, so its every line is an option of its own.
    public static let patternKeywords: Set<String> = [
        "hostname", "user", "port", "proxyjump", "localforward", "remoteforward", "dynamicforward",
    ]

    /// Why `line` cannot be kept under a `Host` pattern: as for a host's option, except that the host fields
    /// (`patternKeywords`) are lines there too.
    public static func patternProblem(_ line: String) -> String? {
        guard let option = SSHOption(line: line), patternKeywords.contains(option.key) else { return problem(line) }
        return problem(line, modelledAllowed: true)
    }

    /// Why `line` cannot be kept as an option (in the user's words), or nil.
    public static func problem(_ line: String) -> String? { problem(line, modelledAllowed: false) }

    static func problem(_ line: String, modelledAllowed: Bool) -> String? {
        if let problem = Validation.controlCharacterProblem(line) { return "option '\(line.prefix(40))' \(problem)" }
        if line.utf8.count > maxLength { return "option '\(line.prefix(40))…' is longer than \(maxLength) bytes" }
        guard let option = SSHOption(line: line) else { return "option is empty" }
        guard
            option.keyword.utf8.allSatisfy({
                (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
            })
        else { return "'\(option.keyword)' is not an ssh_config keyword (letters and digits only)" }
        guard !option.value.isEmpty else { return "option \(option.keyword) has no value ('\(option.keyword) VALUE')" }
        if modelled.contains(option.key), !(modelledAllowed && patternKeywords.contains(option.key)),
            !isSocketForward(option)
        {
            return "\(option.keyword) is a host field of its own, not an option (use \(flag(for: option.key)))"
        }
        // ssh reads every line's quotes (argv_split) before it looks at the keyword: one it cannot read stops the file.
        if (try? SSHConfigLexer.lex(Substring(line), file: "", number: 0)) == nil {
            return "option '\(line.prefix(40))' has an unterminated quote"
        }
        return nil
    }

    /// A LocalForward or RemoteForward with a unix socket at either end (an argument with a `/`): not a rule sshelf
    /// models (its rules are TCP ports), so the line is kept with the host as written. sshelf's client cannot run it:
    /// libssh2 before 1.11 has no direct-streamlocal channel and none has streamlocal-forward for the remote side;
    /// OpenSSH's ssh does (`sshelf connect NAME --openssh`, the ssh_config bridge).
    public static func isSocketForward(_ option: SSHOption) -> Bool {
        (option.key == "localforward" || option.key == "remoteforward")
            && option.arguments.contains { $0.contains("/") }
    }

    /// The longest option line kept (a long ProxyCommand fits).
    public static let maxLength = 4096
    /// The most options one host or defaults block keeps.
    public static let maxCount = 256

    /// The flag or command that sets a modelled keyword instead.
    static func flag(for key: String) -> String {
        switch key {
        case "hostname": "--host"
        case "user": "--user"
        case "port": "--port"
        case "proxyjump": "--jump"
        case "localforward", "remoteforward", "dynamicforward": "sshelf forward add"
        default: "the host's own settings"
        }
    }

    /// Problems of a whole list (each line, and the count).
    public static func problems(_ lines: [String]) -> [String] {
        var found = lines.compactMap(problem)
        if lines.count > maxCount { found.append("more than \(maxCount) options") }
        return found
    }
}

extension SSHOption {
    /// `lines` edited: each keyword given in `setting` has all its old lines replaced by the new ones, where its first
    /// old line stood (at the end when it had none); each keyword in `removing` loses all its lines. Returns the
    /// keywords to remove that had no line.
    public static func edited(_ lines: [String], setting new: [String], removing keys: [String])
        -> (lines: [String], notFound: [String])
    {
        let additions = new.compactMap(SSHOption.init(line:))
        let replacing = Set(additions.map(\.key))
        let removing = Set(keys.map { $0.lowercased() })
        var result: [String] = []
        var placed: Set<String> = []
        var found: Set<String> = []
        for line in lines {
            let key = SSHOption(line: line)?.key ?? ""
            if removing.contains(key) {
                found.insert(key)
                continue
            }
            guard replacing.contains(key) else {
                result.append(line)
                continue
            }
            if placed.insert(key).inserted { result += additions.filter { $0.key == key }.map(\.line) }
        }
        for option in additions where !placed.contains(option.key) { result.append(option.line) }
        return (result, keys.filter { !found.contains($0.lowercased()) })
    }
}

extension Array where Element == String {
    /// The lines as options (lines that do not parse are left out).
    public var sshOptions: [SSHOption] { compactMap(SSHOption.init(line:)) }
}

/// Options the user wrote for every host a `Host` pattern matches (`Host *`, `Host prod-* !prod-bastion`), every line
/// kept in the order it was written (`User` and `Port` too): written after every host's own block, as ssh reads them
/// (first value wins, so a host's own setting comes first; forwards and IdentityFiles accumulate). sshelf's client
/// applies them the same way (`applied(to:)`). They stay on this device (docs/SSH.md, "Host patterns").
/// A `Match` block only ssh can decide (`Match exec …`) is kept among them as written, for OpenSSH alone: it matches
/// no host here, and export writes it back where it stood.
public struct OptionDefaults: Hashable, Sendable, Codable {
    /// The `Host` line's patterns as written, space-separated (`* !bastion`); for a Match block, its criteria as
    /// written (`host *.corp exec "test -e /run/vpn"`).
    public var pattern: String
    /// Option lines, as for a host.
    public var options: [String]
    /// A `Match` block kept for OpenSSH (never applied by sshelf).
    public var isMatch = false

    public init(pattern: String, options: [String]) {
        self.pattern = pattern
        self.options = options
    }

    public init(match criteria: String, options: [String]) {
        self.init(pattern: criteria, options: options)
        isMatch = true
    }

    /// The block's first line: `Host PATTERN` or `Match CRITERIA`.
    public var header: String { (isMatch ? "Match " : "Host ") + pattern }

    public var patterns: [String] { pattern.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init) }

    /// OpenSSH's Host matching on an alias: some positive pattern matches and no negated one does.
    public func matches(_ alias: String) -> Bool {
        !isMatch && SSHConfigResolver.hostMatches(patterns: patterns, alias: alias)
    }

    /// Whether the block applies to `host`: ssh matches the name it is given, so a block applies when it matches the
    /// host's name (the name sshelf and the bridge's first pattern use).
    public func matches(_ host: Host) -> Bool { matches(host.name) }

    /// What the defaults give a host that leaves a field unset, as ssh reads them (the host's own block first, then
    /// the blocks in order, the first value winning): a user when it has none, a port when it has the default. Each
    /// field taken is named with the pattern it came from, for `show`.
    public static func applied(_ blocks: [OptionDefaults], to host: Host) -> (
        host: Host, from: [(field: String, pattern: String)]
    ) {
        var host = host
        var from: [(field: String, pattern: String)] = []
        var userSet = !host.user.isEmpty, portSet = host.port != Host.defaultPort
        for block in blocks where block.matches(host) {
            for option in block.options.sshOptions {
                switch option.key {
                case "user" where !userSet:
                    userSet = true
                    guard let user = option.arguments.first, Validation.userProblem(user) == nil, !user.isEmpty else {
                        continue
                    }
                    host.user = user
                    from.append(("User", block.pattern))
                case "port" where !portSet:
                    portSet = true
                    guard let port = option.arguments.first.flatMap(ForwardSpec.parsePort) else { continue }
                    host.port = port
                    from.append(("Port", block.pattern))
                default:
                    break
                }
            }
        }
        return (host, from)
    }

    /// The forwards of the blocks that apply to `host`, in order (lines that do not read as a forward are left out).
    public static func forwards(_ blocks: [OptionDefaults], for host: Host) -> [ForwardSpec] {
        blocks.filter { $0.matches(host) }.flatMap { $0.options.sshOptions }.compactMap { option in
            let kind: ForwardKind
            switch option.key {
            case "localforward": kind = .local
            case "remoteforward": kind = .remote
            case "dynamicforward": kind = .dynamic
            default: return nil
            }
            return try? ForwardSpec.parseConfig(option.arguments, kind: kind)
        }
    }

    /// Why a kept Match line cannot be written back: a character that would end the line, or nothing to match on.
    public static func matchProblem(_ criteria: String) -> String? {
        if let problem = Validation.controlCharacterProblem(criteria) { return "Match line \(problem)" }
        if criteria.trimmingSpaces().isEmpty { return "the Match line has no criteria" }
        return nil
    }

    /// Why a pattern cannot be a defaults block: empty, or a character that would end the line or start a comment.
    public static func patternProblem(_ pattern: String) -> String? {
        if let problem = Validation.controlCharacterProblem(pattern) { return "pattern \(problem)" }
        let words = pattern.split(whereSeparator: { $0 == " " || $0 == "\t" })
        if words.isEmpty { return "the pattern is empty (e.g. '*' or '*.example.com')" }
        if words.contains(where: { $0.hasPrefix("#") || $0.contains("\"") || $0.contains("=") }) {
            return "pattern '\(pattern)' has a word ssh would not read as a host pattern"
        }
        if words.allSatisfy({ $0.hasPrefix("!") }) {
            return "pattern '\(pattern)' has only negations and matches nothing"
        }
        return nil
    }
}
