// SSHConfigCommands: `sshelf ssh-config write|install|uninstall|defaults` — the ssh_config bridge that lets OpenSSH's
// ssh, scp, rsync and git use sshelf's hosts, jump chains, pins and vault keys, the one Include line in
// ~/.ssh/config that turns it on, and the defaults blocks (`Host *` and other patterns) kept from an import.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfServices
import ShelfStore

enum SSHConfigCommands {
    static let commands: [CommandSpec] = [
        CommandSpec(
            path: ["ssh-config", "write"], summary: "write the ssh_config bridge for OpenSSH's tools",
            details: """
                Writes every host to ~/.config/sshelf/ssh_config (XDG_CONFIG_HOME): HostName, User, Port, ProxyJump \
                by alias, forwards and the kept options; hosts whose key is in the vault get IdentityAgent (the \
                sshelf agent) and their public key, pinned hosts get a known_hosts file holding exactly sshelf's \
                pins (StrictHostKeyChecking yes). Once written, sshelf rewrites it after every change (commands, the \
                TUI, sync). Options the installed ssh refuses are left out as comments.
                """,
            run: write),
        CommandSpec(
            path: ["ssh-config", "install"], summary: "include the bridge from ~/.ssh/config (ssh, scp, git…)",
            details: """
                Writes the bridge, then adds one line, Include ~/.config/sshelf/ssh_config, at the top of \
                ~/.ssh/config (created 0600, with ~/.ssh 0700, when missing). Nothing else in the file changes; a \
                copy of it is saved as ~/.ssh/config.sshelf-backup first (once: that first copy is never replaced). \
                Running it again changes nothing. A host also in ~/.ssh/config is written the way that file says it \
                (its forwards in its words, its ProxyCommand; its SendEnv left to it), so ssh -G of every host stays \
                as it was but for the agent, key and pin lines; sshelf check names any host where it does not. Vault \
                keys need the sshelf agent running (sshelf agent start).
                """,
            examples: ["sshelf ssh-config install && sshelf agent start && ssh web1"],
            run: install),
        CommandSpec(
            path: ["ssh-config", "uninstall"], summary: "take the bridge's Include line out of ~/.ssh/config",
            details: "Removes only that line (~/.ssh/config.sshelf-backup keeps the file as it was before the first "
                + "install). With --remove the bridge and its files are deleted too, and no longer kept up to date.",
            options: UninstallOptions.self,
            run: uninstall),
        CommandSpec(
            path: ["ssh-config", "defaults"], summary: "list or edit the options kept for Host patterns (Host *)",
            details: """
                Every line an import found under Host patterns (Host *, Host prod-* !prod-bastion) is kept for \
                the hosts the pattern matches, in the order written — User, Port, HostName, ProxyJump and forwards \
                too: after a host's own settings, so a host's own value wins, as in ssh; a host without a user or \
                with port 22 connects with the pattern's (sshelf show says so). They belong to this device (like \
                ~/.ssh/config) and do not sync. Without \
                options, lists them; with a PATTERN and --option/--remove-option, edits that pattern's block \
                (created when missing); --remove deletes it.
                """,
            arguments: [
                ArgumentSpec(
                    name: "PATTERN", help: "the Host pattern, e.g. '*' or '*.internal !bastion'", optional: true)
            ],
            options: DefaultsOptions.self,
            examples: [
                "sshelf ssh-config defaults", "sshelf ssh-config defaults 'prod-*' --option 'User deploy'",
                "sshelf ssh-config defaults '*' --option 'ServerAliveInterval 60'",
            ],
            run: defaults),
    ]

    static func bridge(_ context: AppContext) -> SSHConfigBridge { SSHConfigBridge(workspace: context.workspace) }

    static func write(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let written = try bridge(context).write(from: try context.store())
        report(written, context: context, path: bridge(context).path)
        return 0
    }

    static func report(_ written: SSHConfigBridge.Written, context: AppContext, path: String) {
        context.print(
            "wrote \(Display.count(written.hosts, "host")) to \(path)\(written.changed ? "" : " (unchanged)")")
        for (line, why) in written.refused.sorted(by: { $0.key < $1.key }) {
            context.warn(RefusedOptions.words(line, why: why))
        }
    }

    static func install(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let bridge = bridge(context)
        let written = try bridge.write(from: try context.store(), included: true)
        report(written, context: context, path: bridge.path)
        let include = SSHConfigInclude(home: context.homeDirectory, bridgePath: bridge.path)
        switch try include.install() {
        case .changed:
            context.print(
                "added '\(include.line)' at the top of \(include.configPath) (a copy of the file before: "
                    + "\(include.backupPath))")
        case .alreadyThere, .notThere:
            context.print("\(include.configPath) already includes \(bridge.path)")
        }
        if AgentClient.status(context.locations) == nil,
            try context.store().identities().contains(where: { $0.privateKeyRef != nil })
        {
            context.errorOutput(
                "sshelf: hint: keys in the vault reach ssh through the sshelf agent: sshelf agent start\n")
        }
        return 0
    }

    struct UninstallOptions: CommandOptions {
        let remove = Flag("remove", "also delete the bridge and the files beside it")
    }

    struct DefaultsOptions: CommandOptions {
        let option = Repeated(
            "option", .text("'KEY VALUE'"), "set an ssh_config option for the pattern (replaces that keyword's lines)")
        let removeOption = Repeated(
            "remove-option", .text("KEY"), "remove every line of this option from the pattern")
        let remove = Flag("remove", "delete the pattern's block")
    }

    static func uninstall(_ call: Call<UninstallOptions>, _ context: AppContext) throws -> Int32 {
        let bridge = bridge(context)
        let include = SSHConfigInclude(home: context.homeDirectory, bridgePath: bridge.path)
        switch try include.uninstall() {
        case .changed:
            context.print(
                "removed the Include of \(bridge.path) from \(include.configPath) (a copy of the file "
                    + "before: \(include.backupPath))")
        case .alreadyThere, .notThere:
            context.print("\(include.configPath) does not include \(bridge.path); nothing to remove")
        }
        if call[\.remove] {
            bridge.remove()
            context.print("deleted \(bridge.path) and the files beside it; sshelf no longer writes them")
        } else if bridge.exists {
            // Read on its own now (connect --openssh -F): what it left to ~/.ssh/config is written back in.
            try bridge.write(from: try context.store(), included: false)
        }
        return 0
    }

    static func defaults(_ call: Call<DefaultsOptions>, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        let options = call[\.option], removed = call[\.removeOption]
        guard let pattern = call.argument(0) else {
            guard options.isEmpty, removed.isEmpty, !call[\.remove] else {
                throw ShelfError(
                    .usage, "ssh-config defaults: which pattern?",
                    hint: "sshelf ssh-config defaults '*' --option 'KEY VALUE'")
            }
            let blocks = try store.optionDefaults()
            if blocks.isEmpty {
                context.errorOutput("no defaults; an import keeps the options written under Host patterns (Host *)\n")
                return 0
            }
            context.output(
                blocks.map { block in
                    "\(Display.safe(block.header))\n" + block.options.map { "    \(Display.safe($0))\n" }.joined()
                }.joined(separator: "\n"))
            return 0
        }
        if let problem = OptionDefaults.patternProblem(pattern) {
            throw ShelfError(.invalid, "'\(Display.safe(pattern))': \(problem)")
        }
        let changed = try store.write { store in
            var blocks = try store.optionDefaults()
            // Match blocks kept for OpenSSH are not edited here (their criteria are not a pattern).
            let index = blocks.firstIndex { !$0.isMatch && $0.pattern == pattern }
            if call[\.remove] {
                guard let index else {
                    throw ShelfError(
                        .notFound, "no defaults for Host \(Display.safe(pattern))",
                        hint: "see 'sshelf ssh-config defaults'")
                }
                blocks.remove(at: index)
            } else {
                guard !options.isEmpty || !removed.isEmpty else {
                    throw ShelfError(
                        .usage, "ssh-config defaults: nothing to change",
                        hint: "give --option 'KEY VALUE', --remove-option KEY or --remove")
                }
                var block = index.map { blocks[$0] } ?? OptionDefaults(pattern: pattern, options: [])
                block.options = try patternOptions(
                    block.options, setting: options, removing: removed, owner: "Host \(pattern)")
                if let index { blocks[index] = block } else { blocks.append(block) }
            }
            try store.setOptionDefaults(blocks)
            return blocks.first { !$0.isMatch && $0.pattern == pattern }
        }
        context.print(
            changed.map { "Host \(Display.safe($0.pattern)): \(Display.count($0.options.count, "option"))" }
                ?? "removed the defaults for Host \(Display.safe(pattern))")
        return 0
    }

    /// A pattern block's lines edited: host fields (`User deploy`, `Port 2222`, `LocalForward …`) are lines there,
    /// checked by the pattern rule; every other line as a host's option is (OptionInput, which asks the installed ssh
    /// too). The lines keep the order they were typed in.
    static func patternOptions(_ lines: [String], setting new: [String], removing keys: [String], owner: String) throws
        -> [String]
    {
        let fields = new.filter { SSHOption(line: $0).map { SSHOption.patternKeywords.contains($0.key) } ?? false }
        for line in fields {
            if let problem = SSHOption.patternProblem(line) {
                throw ShelfError(
                    .invalid, "--option '\(Display.safe(line))': \(problem)",
                    hint: "give one ssh_config line as 'Keyword value', e.g. --option 'User deploy'")
            }
        }
        try OptionInput.check(new.filter { !fields.contains($0) })
        let edited = try OptionInput.edited(lines, setting: new, removing: keys, owner: owner)
        if let problem = edited.compactMap(SSHOption.patternProblem).first { throw ShelfError(.invalid, problem) }
        if edited.count > SSHOption.maxCount { throw ShelfError(.invalid, "more than \(SSHOption.maxCount) options") }
        return edited
    }
}
