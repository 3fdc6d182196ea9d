// MiscCommands: `check` (cross-record problems), `completions`, `manpage`, `version`.
import FoundationEssentials
import ShelfCore
import ShelfSSH
import ShelfOperations
import ShelfServices
import ShelfTerminal
import ShelfVault

enum MiscCommands {
    static let commands: [CommandSpec] = [
        CommandSpec(
            path: ["check"],
            summary: "report problems in the store: cycles, dangling references, shared names, invalid fields",
            details:
                "Records with problems are kept (sync may still deliver the missing half); this lists them, each with "
                + "the command that fixes it where there is one. Hosts that share a name (two devices may each add "
                + "one) are named NAME@ID, as every command accepts them. Hosts that cannot be written to an "
                + "ssh_config (the bridge and export leave them out) are named with the reason, and so are settings "
                + "of the ssh_config bridge an import took in as host options (--fix takes those out). When "
                + "~/.ssh/config includes the bridge, every host that file defines too is resolved by ssh -G with and "
                + "without the bridge, and each option the two disagree on is named (apart from the agent, key and "
                + "pin settings the bridge adds), and so is sshelf's own HostName, User or Port where it differs from "
                + "the file (the file decides for the hosts it defines). When ~/.ssh/config changed since it was last "
                + "imported, check says so and offers the re-import; it ends with where ssh takes each host's "
                + "settings from. Exit code 4 when anything is found.",
            options: CheckOptions.self,
            run: check),
        CommandSpec(
            path: ["completions"], summary: "print a shell completion script",
            arguments: [
                ArgumentSpec(name: "SHELL", help: "bash, zsh or fish", completion: .words(["bash", "zsh", "fish"]))
            ],
            examples: ["sshelf completions bash > ~/.local/share/bash-completion/completions/sshelf"],
            run: completions),
        CommandSpec(path: ["manpage"], summary: "print the sshelf(1) manual page (roff)", run: manpage),
        CommandSpec(
            path: ["version"], summary: "print version and library versions",
            details:
                "With --verbose, also what the libssh2 sshelf loaded can do (it is asked at run time: Debian 12 ships "
                + "1.10, Debian 13 1.11) and where that library is.",
            options: VersionOptions.self, run: version),
    ]

    struct CheckOptions: CommandOptions {
        let json = Flag("json", "print JSON for scripts")
        let fix = Flag(
            "fix",
            "first take out what an import of the ssh_config bridge brought in (its agent, pin and key "
                + "settings), and write the bridge anew for ~/.ssh/config as it is now")
    }

    struct VersionOptions: CommandOptions {
        let verbose = Flag("verbose", short: "v", "also list the loaded libssh2's features")
    }

    static func check(_ call: Call<CheckOptions>, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        let leftovers = BridgeLeftovers(locations: context.locations)
        if call[\.fix] {
            let fixed = try leftovers.fix(store)
            if fixed.hosts > 0 || fixed.identitiesRemoved > 0 {
                let settings = "\(fixed.lines) bridge setting\(fixed.lines == 1 ? "" : "s")"
                let hosts = "\(fixed.hosts) host\(fixed.hosts == 1 ? "" : "s")"
                let copies =
                    "\(fixed.identitiesRemoved) copied bridge key identit\(fixed.identitiesRemoved == 1 ? "y" : "ies")"
                context.errorOutput("sshelf: fixed: took \(settings) out of \(hosts), removed \(copies)\n")
            }
        }
        let bridge = SSHConfigBridge(workspace: context.workspace)
        // ~/.ssh/config may have changed since the bridge was last written (it is written on sshelf's changes).
        if call[\.fix], bridge.exists { try bridge.write(from: store) }
        let hosts = try store.hosts()
        let problems =
            try store.problems()
            + leftovers.problems(hosts: hosts, identities: try store.identities())
            + BridgeTransparencyCheck(bridge: bridge).problems(hosts: hosts)
            + bridge.refusedOptionProblems(store)
            + UserConfigSource(bridge: bridge).problems(store: store)
        if call[\.json] {
            struct View: Encodable { var kind: String; var recordID: String; var message: String; var fix: String? }
            context.print(
                try JSONOutput.encode(
                    problems.map { problem in
                        View(
                            kind: problem.kind.rawValue, recordID: problem.recordID.uuidString.lowercased(),
                            message: problem.message, fix: problem.fix)
                    }))
        } else if problems.isEmpty {
            context.print("no problems found")
        } else {
            context.output(
                problems.map { problem in
                    "\(Display.safe(problem.message))\n" + (problem.fix.map { "  fix: \(Display.safe($0))\n" } ?? "")
                }.joined())
        }
        if !call[\.json], let classical = try KeyExchangeWords.classicalLastSessions(hosts, store: store) {
            context.output(classical)
        }
        if !call[\.json], let origins = UserConfigSource(bridge: bridge).origins(hosts: hosts) {
            // Where ssh takes each host's settings from (docs/SSH.md, "One source of truth per host").
            var lines = "where ssh takes each host's settings from (\(origins.file) includes the ssh_config bridge):\n"
            if !origins.fromFile.isEmpty {
                lines +=
                    "  \(origins.file), sshelf adding its vault key, pin and unlock: "
                    + origins.fromFile.map(Display.safe).joined(separator: ", ") + "\n"
            }
            if !origins.fromSshelf.isEmpty {
                lines += "  sshelf (the bridge): " + origins.fromSshelf.map(Display.safe).joined(separator: ", ") + "\n"
            }
            context.output(lines)
        }
        return problems.isEmpty ? 0 : 4
    }

    static func completions(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        switch call.arguments[0] {
        case "bash": context.output(Completions.bash(Commands.table))
        case "zsh": context.output(Completions.zsh(Commands.table))
        case "fish": context.output(Completions.fish(Commands.table))
        default:
            throw ShelfError(
                .invalid, "completions: unknown shell '\(Display.safe(call.arguments[0]))'",
                hint: "one of: bash, zsh, fish")
        }
        return 0
    }

    static func manpage(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        context.output(ManPage.render(Commands.table))
        return 0
    }

    static func version(_ call: Call<VersionOptions>, _ context: AppContext) throws -> Int32 {
        context.print(
            """
            sshelf \(AppVersion.version)
            libssh2 \(LibSSH2.version)
            libsodium \(Sodium.version)
            \(Terminal.cursesVersion)
            """)
        if call[\.verbose] {
            context.print(
                "libssh2 \(LibSSH2.version) (\(LibSSH2.path)) features:\n"
                    + LibSSH2.features.lines.joined(separator: "\n"))
        }
        return 0
    }
}
