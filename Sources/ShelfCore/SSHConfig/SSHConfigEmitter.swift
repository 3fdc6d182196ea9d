// SSHConfigEmitter: writes hosts as a valid OpenSSH config — `sshelf export ssh-config`, and the ssh_config bridge
// OpenSSH's own tools read (`Bridge`: the sshelf agent for vault keys, sshelf's pins enforced). No secrets exist in
// the model, so none can be written; IdentityFile appears only where a file path is known. Kept options are written
// back verbatim after the fields sshelf models; one that cannot be written safely becomes a comment that says why.
import FoundationEssentials

public enum SSHConfigEmitter {
    public struct Input: Sendable {
        public var hosts: [Host]
        public var identities: [Identity]
        public var rules: [PortForwardRule]
        public var groups: [HostGroup]
        public var defaults: [OptionDefaults]
        /// The post-quantum key exchanges the installed ssh has (`ssh -Q kex`): an export's `KexAlgorithms` line for
        /// a host that requires one (the bridge's list is `Bridge.postQuantumKex`, the same).
        public var postQuantumKex: [String]
        public init(
            hosts: [Host], identities: [Identity], rules: [PortForwardRule], groups: [HostGroup],
            defaults: [OptionDefaults] = [], postQuantumKex: [String] = []
        ) {
            self.hosts = hosts
            self.identities = identities
            self.rules = rules
            self.groups = groups
            self.defaults = defaults
            self.postQuantumKex = postQuantumKex
        }
    }

    /// What the bridge adds to an export so OpenSSH's tools behave as sshelf does.
    public struct Bridge: Sendable {
        /// The sshelf agent's socket (`IdentityAgent` of hosts whose key is in the vault).
        public var agentSocket: String
        /// The file of sshelf's pins (`UserKnownHostsFile` of pinned hosts).
        public var pinsFile: String
        /// The public key file written for each vault identity: ssh offers exactly that agent key (IdentitiesOnly).
        public var publicKeyFiles: [UUID: String]
        /// Option lines the installed ssh refuses, with its words: written as comments, so one bad line cannot
        /// stop every ssh command that reads the bridge.
        public var refused: [String: String]
        /// The user's own ~/.ssh/config when it includes the bridge (nil otherwise): what it already says for a host
        /// is written the way it says it, or left to it, so ssh reads nothing twice (the transparency rule).
        public var userConfig: SSHConfigHostLines?
        /// The sshelf executable the bridge's unlock guard runs (SSHConfigAgentCheck); nil: the older agent check.
        public var sshelfProgram: String?
        /// Whether sshelf's forward rules are written as forwards: only for `forward start --openssh`'s own config.
        /// The bridge leaves them out: sshelf runs them, and a second listener on their port would fail every ssh.
        public var writesForwardRules: Bool
        /// The post-quantum key exchanges the installed ssh has (`ssh -Q kex`): the only KexAlgorithms of a host whose
        /// `pq` setting (or a group's) is `require`. Empty: such a host is left out, never written with a classical
        /// one.
        public var postQuantumKex: [String]

        public init(
            agentSocket: String, pinsFile: String, publicKeyFiles: [UUID: String],
            refused: [String: String] = [:], userConfig: SSHConfigHostLines? = nil, sshelfProgram: String? = nil,
            writesForwardRules: Bool = false, postQuantumKex: [String] = []
        ) {
            self.agentSocket = agentSocket
            self.pinsFile = pinsFile
            self.publicKeyFiles = publicKeyFiles
            self.refused = refused
            self.userConfig = userConfig
            self.sshelfProgram = sshelfProgram
            self.writesForwardRules = writesForwardRules
            self.postQuantumKex = postQuantumKex
        }
    }

    /// An argument as ssh_config's reader (OpenSSH's argv_split) takes it back unchanged: bare when it holds nothing
    /// the reader gives a meaning, else in double quotes with `\\` and `"` escaped. The caller makes sure no
    /// control character is in it (`SSHConfigArgument.write` refuses them).
    public static func quote(_ text: String) -> String {
        if !text.isEmpty, !text.utf8.contains(where: { SSHConfigArgument.special.contains($0) }) { return text }
        return "\"" + text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
    }

    /// Why a host name cannot be a literal `Host` pattern (it would match other hosts, or is no name at all).
    public static func unexportableName(_ name: String) -> String? {
        if name.contains(where: { "*?!,".contains($0) }) {
            return "contains one of * ? ! , which ssh reads as a pattern"
        }
        if Validation.nameProblem(name) != nil { return "is not a valid name" }
        return nil
    }

    /// `sshelf export ssh-config`: every host, then the defaults blocks as the user wrote them.
    public static func emit(_ input: Input, generatedBy: String = "sshelf") -> String {
        var out = "# Generated by \(generatedBy). Secrets are never written here.\n"
        write(input, bridge: nil, into: &out)
        for block in input.defaults { out += defaultsBlock(block) }
        return out
    }

    /// The bridge file: every host with the sshelf agent and sshelf's pins; each host's matching defaults are written
    /// inside its own block (after its options), so they reach sshelf's hosts only and never the user's others.
    public static func emitBridge(_ input: Input, bridge: Bridge, generatedBy: String = "sshelf") -> String {
        var out = """
            # Generated by \(generatedBy): the hosts of sshelf for OpenSSH's ssh, scp, sftp, rsync and git.
            # Rewritten after every change; edit hosts with sshelf (a change made here is lost). No secrets are here:
            # keys in sshelf's vault are served by the sshelf agent (sshelf agent start).

            """
        out += unlockGuard(input, bridge: bridge)
        write(input, bridge: bridge, into: &out)
        out += agentCheck(input, bridge: bridge)
        return out
    }

    /// The names written as a literal `Host` line (each exportable name once, the first host having it): a jump host
    /// among them is written by alias.
    public static func writtenNames(_ hosts: [Host]) -> [UUID: String] {
        var seen: Set<String> = []
        var written: [UUID: String] = [:]
        for host in sorted(hosts)
        where unexportableName(host.name) == nil && seen.insert(host.name.lowercased()).inserted
            && Validation.hostnameProblem(host.hostname) == nil && Validation.userProblem(host.user) == nil
        {
            written[host.id] = host.name
        }
        return written
    }

    static func sorted(_ hosts: [Host]) -> [Host] {
        hosts.sorted {
            NaturalOrder.precedes($0.name, $1.name)
                || ($0.name == $1.name && $0.id.uuidString < $1.id.uuidString)
        }
    }

    private static func write(_ input: Input, bridge: Bridge?, into out: inout String) {
        let context = Context(input)
        var seen: Set<String> = []
        // Names come before aliases: an alias that is also a host's name (sync can bring that) is left to the name.
        var aliasTaken = Set(input.hosts.map { $0.name.lowercased() })
        var currentGroup = ""
        for host in sorted(input.hosts) {
            out += "\n"
            if let why = unexportableName(host.name) {
                out += "# skipped host \(host.id.uuidString.lowercased()): its name \(why)\n"
                continue
            }
            guard seen.insert(host.name.lowercased()).inserted else {
                out +=
                    "# skipped a second host named '\(safe(host.name))' (\(host.id.uuidString.lowercased())): ssh "
                    + "would use the first\n"
                continue
            }
            // sshclick's annotations: a group holds until the next `#@group:` (an empty one ends it).
            let path = context.tree.path(of: host.groupID)
            if path != currentGroup {
                out += "#@group: \(safe(path))\n"
                currentGroup = path
            }
            let aliases = host.aliases.filter {
                unexportableName($0) == nil && aliasTaken.insert($0.lowercased()).inserted
            }
            do {
                out += try block(host, context, bridge: bridge, defaults: input.defaults, aliases: aliases)
            } catch {
                out += "# skipped host \(host.id.uuidString.lowercased()): \(safe(error.reason))\n"
            }
        }
    }

    /// The hosts export and the bridge leave out, each with the reason (a second host of one name is not among
    /// them: `check` reports shared names on their own).
    public static func unwritableHosts(_ input: Input) -> [UUID: String] {
        let context = Context(input)
        var reasons: [UUID: String] = [:]
        for host in input.hosts {
            if let why = unexportableName(host.name) {
                reasons[host.id] = "its name \(why)"
                continue
            }
            do { _ = try block(host, context, bridge: nil, defaults: []) } catch { reasons[host.id] = error.reason }
        }
        return reasons
    }

    /// The name a pinned host's key is kept under in the bridge's pins file (`HostKeyAlias`): its id, which no other
    /// host shares and a rename does not change.
    public static func pinAlias(_ id: UUID) -> String { "sshelf-" + id.uuidString.lowercased() }

    /// What every host's block looks up: identities, jump hosts and forwards by id, the names written as `Host` lines.
    struct Context {
        let tree: GroupTree
        let identities: [UUID: Identity]
        let hostsByID: [UUID: Host]
        let rulesByHost: [UUID?: [PortForwardRule]]
        let written: [UUID: String]
        let postQuantumKex: [String]

        init(_ input: Input) {
            postQuantumKex = input.postQuantumKex
            tree = GroupTree(input.groups)
            identities = Dictionary(input.identities.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            hostsByID = Dictionary(input.hosts.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            rulesByHost = Dictionary(grouping: input.rules.filter { $0.enabled && $0.kind.isKnown }, by: { $0.hostID })
            written = writtenNames(input.hosts)
        }
    }

    /// One host's block, every line written by `SSHConfigArgument` and read back by the lexer before it is kept; a
    /// value that cannot be written so ssh reads it as it is (or that is not safe to hand to ssh: a record that came
    /// by sync is not trusted to be valid) throws, and the caller leaves the whole host out with the reason.
    static func block(
        _ host: Host, _ context: Context, bridge: Bridge?, defaults: [OptionDefaults],
        aliases: [String] = []
    ) throws(SSHConfigArgument.Unwritable) -> String {
        typealias Unwritable = SSHConfigArgument.Unwritable
        if let problem = Validation.hostnameProblem(host.hostname) { throw Unwritable("its hostname \(problem)") }
        if let problem = Validation.userProblem(host.user) { throw Unwritable("its \(problem)") }
        if let problem = Validation.jumpTextProblem(host.unresolvedJump) { throw Unwritable("its \(problem)") }
        var out = ""
        let user = SSHConfigTransparency(bridge?.userConfig, names: [host.name] + aliases)
        if !host.tags.isEmpty { out += "# tags: \(safe(host.tags.joined(separator: ", ")))\n" }
        let options = host.options.sshOptions
        let own = Set(options.map(\.key))
        func line(_ keyword: String, _ values: [String], _ kind: SSHConfigArgument.Kind = .literal) throws(Unwritable) {
            out += "    " + (try SSHConfigArgument.line(keyword, values, kind)) + "\n"
        }
        out += try SSHConfigArgument.line("Host", [host.name] + aliases, .literal) + "\n"
        // The host's own post-quantum-only list (an imported one narrower than ssh's) is written in its place, as
        // it was, when the installed ssh has every name in it.
        var ownPostQuantum: String?
        if PostQuantumSetting.required(host, groups: context.tree.groups) {
            // First, so it is the value ssh takes (the first one read wins): no kept option, pattern block or line of
            // the user's own file can bring a classical key exchange back for this host. An export writes the same
            // line (import reads a post-quantum-only list back as `pq require`).
            let names = bridge?.postQuantumKex ?? context.postQuantumKex
            guard !names.isEmpty else {
                throw Unwritable("it requires post-quantum key exchange, which the installed ssh does not have")
            }
            if let kept = host.options.first(where: { KeyExchange.isPostQuantumOnly(line: $0) }),
                let value = SSHOption(line: kept)?.arguments.first,
                value.split(separator: ",").allSatisfy({ names.contains(String($0)) })
            {
                ownPostQuantum = kept
                try line("KexAlgorithms", [value])
            } else {
                try line("KexAlgorithms", [names.joined(separator: ",")])
            }
        }
        for line in host.notes.split(separator: "\n", omittingEmptySubsequences: true) {
            out += "    #@desc: \(safe(String(line)))\n"
        }
        // A host the user's file defines takes what that file gives it from the file (it is read after the bridge,
        // so the bridge yields); ssh's own default (HostName = the name) is left to it too, so a line the user adds
        // later is not shadowed either.
        let yields = { (key: String) in user?.yields(key) == true }
        let defaultHostName = user?.userDefines == true && host.hostname == host.name
        if !yields("hostname"), !defaultHostName { try line("HostName", [host.hostname], .hostname) }
        if !host.user.isEmpty, !yields("user") { try line("User", [host.user], .user) }
        if host.port != Host.defaultPort, !yields("port") { try line("Port", [String(host.port)]) }
        let identity = host.identityID.flatMap { context.identities[$0] }
        if let bridge, let identity, identity.privateKeyRef != nil, let publicFile = bridge.publicKeyFiles[identity.id]
        {
            // The key exists only in the vault: the sshelf agent serves it, and the public key file makes ssh
            // offer that key (and no other agent key) first.
            try line("IdentityAgent", [bridge.agentSocket], .path)
            try line("IdentityFile", [publicFile], .path)
            if !own.contains("identitiesonly") { try line("IdentitiesOnly", ["yes"]) }
        } else if let identity, !identity.keyFile.isEmpty {
            // The user's own ssh_config value (an import keeps `~` and %d as written): quoted, never re-escaped.
            try line("IdentityFile", [identity.keyFile])
        }
        let jumps = host.jumpHostIDs.compactMap { context.hostsByID[$0] }
        if user?.yieldsJump == true {
            // The user's ProxyJump or ProxyCommand for a host their file defines: theirs decides.
        } else if !jumps.isEmpty, jumps.count == host.jumpHostIDs.count {
            // By alias when the jump host is in this file (its own settings apply to the hop, as in the user's
            // config); by address otherwise, so the line works on its own. OpenSSH (9.2) hands a hop to a shell.
            var hops: [String] = []
            for jump in jumps {
                if let alias = context.written[jump.id], Validation.jumpTextProblem(alias) == nil {
                    hops.append(alias)
                } else if Validation.hostnameProblem(jump.hostname) == nil,
                    Validation.jumpTextProblem(jumpDestination(jump)) == nil
                {
                    hops.append(jumpDestination(jump))
                } else {
                    throw Unwritable(
                        "its jump host '\(jump.name)' cannot be written as a ProxyJump hop (a name or address "
                            + "with characters a hop cannot have)")
                }
            }
            if let command = user?.proxyCommand(for: hops) {
                out += optionLine(command, refused: [:])
            } else {
                try line("ProxyJump", [hops.joined(separator: ",")])
            }
        } else if !host.unresolvedJump.isEmpty {
            try line("ProxyJump", [host.unresolvedJump])
        }
        if let bridge, host.pinnedHostKey != nil {
            // Exactly sshelf's pin: no other known_hosts file, no key learnt on the way, no asking. The pin is looked
            // up by this host's own name (HostKeyAlias), not its address: two hosts at one address and port (one
            // private address behind two jump hosts) must not accept each other's keys. An alias the host's own
            // lines or the user's file give is theirs, and the pins file names the pin under it too.
            if !own.contains("hostkeyalias"), !yields("hostkeyalias") {
                try line("HostKeyAlias", [Self.pinAlias(host.id)])
            }
            try line("UserKnownHostsFile", [bridge.pinsFile], .path)
            out += "    GlobalKnownHostsFile /dev/null\n"
            out += "    StrictHostKeyChecking yes\n"
            out += "    UpdateHostKeys no\n"
        }
        if !own.contains("preferredauthentications"), !yields("preferredauthentications") {
            switch host.authMethod {
            case .password: out += "    PreferredAuthentications password,keyboard-interactive\n"
            case .keyboardInteractive: out += "    PreferredAuthentications keyboard-interactive\n"
            case .publickey: out += "    PreferredAuthentications publickey\n"
            default: break
            }
        }
        // With the user's file in view, forward lines are held and written last in the order that file gives them:
        // ssh lists forwards in the order it first reads them, and the bridge is read first.
        var held: [(text: String, at: Int)] = []
        func place(_ text: String, _ option: String) {
            if let user, SSHConfigTransparency.forwardKeys.contains(SSHOption(line: option)?.key ?? "") {
                held.append((text, user.position(of: option) ?? Int.max))
            } else {
                out += text
            }
        }
        // The bridge leaves sshelf's forward rules to sshelf (it runs them: `forward start|up`, the TUI); written here
        // they would make every `ssh HOST` bind the same ports ("Address already in use"). Forwards the user's own
        // lines give (kept options, the user's file) stay as written.
        let rules = bridge.map { !$0.writesForwardRules } == true ? [] : context.rulesByHost[host.id] ?? []
        // An export writes the defaults as `Host PATTERN` blocks after the hosts: a forward such a block gives this
        // host is written there only, the user's way (ssh reads `19999` and `127.0.0.1:19999` as two forwards).
        let patternForwards: Set<ForwardSpec> =
            bridge != nil
            ? []
            : Set(
                defaults.filter { $0.matches(host.name) }.flatMap { block in
                    block.options.sshOptions.compactMap { SSHConfigTransparency.spec($0.key, $0.arguments) }
                })
        for rule in rules where !patternForwards.contains(rule.spec) {
            // A rule that came by sync is not trusted either: one ssh could not use is a comment, the host stays.
            if let problem = Validation.problems(rule).first {
                out += "    # a forward was left out: \(safe(problem.message))\n"
                continue
            }
            let spec = rule.spec
            let keyword: String, values: [String]
            switch rule.kind {
            case .local: (keyword, values) = ("LocalForward", [spec.listenPart, spec.targetPart])
            case .remote: (keyword, values) = ("RemoteForward", [spec.listenPart, spec.targetPart])
            case .dynamic: (keyword, values) = ("DynamicForward", [spec.listenPart])
            case .other: continue
            }
            let text = try SSHConfigArgument.line(keyword, user?.forward(keyword, spec) ?? values, .literal)
            place("    \(text)\n", text)
        }
        for line in host.options
        where line != ownPostQuantum && user?.leavesToUser(line) != true
            && !(SSHOption(line: line).map { yields($0.key) } ?? false)
        {
            place(optionLine(line, refused: bridge?.refused ?? [:]), line)
        }
        if bridge != nil {
            var set = own
            // A defaults forward that is one of the host's rules is left out too: sshelf runs it (the rules the
            // bridge does not write), and a user's file that includes the bridge gives its own line in its own order.
            let specs = Set((context.rulesByHost[host.id] ?? []).map(\.spec))
            for block in defaults where block.matches(host.name) {
                for option in block.options.sshOptions
                where (SSHOption.accumulating.contains(option.key) || !set.contains(option.key))
                    && user?.leavesToUser(option.line) != true && !yields(option.key)
                    // The host's own forward already: written once (ssh reads `19999`, `127.0.0.1:19999` as two).
                    && !(SSHConfigTransparency.spec(option.key, option.arguments).map(specs.contains) ?? false)
                {
                    place(optionLine(option.line, refused: bridge?.refused ?? [:], pattern: true), option.line)
                }
                set.formUnion(block.options.sshOptions.map(\.key))
            }
        }
        for line in held.enumerated().sorted(by: { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }) {
            out += line.element.text
        }
        return out
    }

    /// One kept option, indented; a line that cannot be written safely (a control character, a modelled keyword: a
    /// synced record is not trusted to be valid) or that this ssh refuses is written as a comment saying why.
    static func optionLine(_ line: String, refused: [String: String], pattern: Bool = false) -> String {
        if let problem = pattern ? SSHOption.patternProblem(line) : SSHOption.problem(line) {
            return "    # an option was left out: \(safe(problem))\n"
        }
        if let why = refused[line] { return "    # left out, this ssh refuses it (\(safe(why))): \(line)\n" }
        return "    \(line)\n"
    }

    /// Text for a comment: every control character (a newline would end the comment) removed.
    static func safe(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { !Validation.isForbidden($0) }))
    }

    static func defaultsBlock(_ block: OptionDefaults) -> String {
        if block.isMatch {
            // A synced or edited record is not trusted: the line must read back as the same Match line.
            guard OptionDefaults.matchProblem(block.pattern) == nil,
                let line = try? SSHConfigLexer.lex(Substring("Match " + block.pattern), file: "", number: 0),
                line.key == "match"
            else { return "\n# skipped a Match block ssh cannot read\n" }
        } else if OptionDefaults.patternProblem(block.pattern) != nil {
            return "\n# skipped defaults with a pattern ssh cannot read\n"
        }
        var out = "\n\(block.header)\n"
        for line in block.options { out += optionLine(line, refused: [:], pattern: true) }
        return out
    }

    static func jumpDestination(_ host: Host) -> String {
        let user = host.user.isEmpty ? "" : "\(host.user)@"
        let name = host.hostname.contains(":") ? "[\(host.hostname)]" : host.hostname
        return host.port == Host.defaultPort ? user + name : "\(user)\(name):\(host.port)"
    }
}
