// SSHConfigTransparency: the bridge's transparency rule for one host — what the user's own ~/.ssh/config (which
// includes the bridge) already says for it is written the way the user wrote it, or left to the user's file, so
// `ssh -G` reads every setting once: a forward in sshelf's spelling and the same forward in the user's would be two
// forwards to ssh (it drops a repeat only when written alike), a SendEnv line twice is sent twice, and a ProxyJump
// would silently replace the user's `ProxyCommand ssh -W %h:%p HOST`. Writing the user's spelling (never leaving a
// setting out) keeps the bridge right when the user later removes the host from their file; only SendEnv, which ssh
// does not deduplicate, is left to the user's file. docs/SSH.md, "The bridge is transparent".
import FoundationEssentials

struct SSHConfigTransparency {
    /// The user's lines for each name of the host (the name first).
    let lines: [[SSHConfigLine]]
    /// Whether a `Host` line of the user's file names the host itself: then that file is the source of truth for
    /// every setting it gives the host, and the bridge yields (docs/SSH.md, "One source of truth per host").
    let userDefines: Bool
    /// The keywords the user's lines give the host's name (any block that matches it).
    let userKeys: Set<String>

    init?(_ view: SSHConfigHostLines?, names: [String]) {
        guard let view else { return nil }
        lines = names.map(view.lines(for:))
        userDefines = names.first.map(view.defines) ?? false
        userKeys = Set(lines.first?.map(\.key) ?? [])
    }

    /// Whether the bridge leaves keyword `key` to the user's file for this host: the file defines the host and gives
    /// the keyword (ssh, reading the bridge first, would otherwise keep sshelf's value and silently shadow a later
    /// edit of the file). Only first-value keywords: an accumulating one is written the user's way instead.
    func yields(_ key: String) -> Bool {
        userDefines && !SSHOption.accumulating.contains(key) && userKeys.contains(key)
    }

    /// The same for a jump: the user's ProxyJump or ProxyCommand (whichever the file gives) decides.
    var yieldsJump: Bool { userDefines && (userKeys.contains("proxyjump") || userKeys.contains("proxycommand")) }

    /// The forward keywords: ssh keeps local and dynamic forwards in one list, in the order it reads them.
    static let forwardKeys: Set<String> = ["localforward", "remoteforward", "dynamicforward"]

    /// A TCP forward line's rule (nil for a unix-socket forward or another keyword).
    static func spec<Words: Collection<String>>(_ key: String, _ arguments: Words) -> ForwardSpec? {
        let kind: ForwardKind
        switch key {
        case "localforward": kind = .local
        case "remoteforward": kind = .remote
        case "dynamicforward": kind = .dynamic
        default: return nil
        }
        guard !arguments.contains(where: { $0.contains("/") }) else { return nil }
        return try? ForwardSpec.parseConfig(Array(arguments), kind: kind)
    }

    /// Where the user's file first gives the forward `line` (the same forward in any spelling) for the host's name.
    func position(of line: String) -> Int? {
        guard let lexed = try? SSHConfigLexer.lex(Substring(line), file: "", number: 0), let mine = lines.first else {
            return nil
        }
        let spec = Self.spec(lexed.key, lexed.arguments)
        return mine.firstIndex { theirs in
            theirs.key == lexed.key
                && (theirs.arguments == lexed.arguments
                    || (spec != nil && Self.spec(theirs.key, theirs.arguments) == spec))
        }
    }

    /// The user's arguments for a forward that is `spec` (ssh reads a forward once only when it is written alike).
    func forward(_ keyword: String, _ spec: ForwardSpec) -> [String]? {
        let key = keyword.lowercased()
        return lines.first?.first { line in line.key == key && Self.spec(line.key, line.arguments) == spec }?.arguments
            .array
    }

    /// The user's `ProxyCommand ssh -W %h:%p HOST` when it is the old spelling of the jump chain `hops` and the first
    /// of ProxyJump/ProxyCommand the user's file gives (the first one wins in ssh): written instead of ProxyJump.
    func proxyCommand(for hops: [String]) -> String? {
        guard let first = lines.first?.first(where: { $0.key == "proxyjump" || $0.key == "proxycommand" }),
            first.key == "proxycommand", ProxyCommandJump.hosts(first.rawArguments) == hops
        else { return nil }
        return "\(first.keyword) \(first.rawArguments)"
    }

    /// Whether every name already gets `line` from the user's file and ssh would read it twice: SendEnv, the one
    /// accumulating keyword ssh (9.2) does not deduplicate. Such a line is left to the user's file.
    func leavesToUser(_ line: String) -> Bool {
        guard let option = SSHOption(line: line), option.key == "sendenv" else { return false }
        let arguments = option.arguments
        return lines.allSatisfy { $0.contains { $0.key == "sendenv" && $0.arguments.elementsEqual(arguments) } }
    }
}
