// HelpText: `--help` pages generated from the command table.
import FoundationEssentials

enum HelpText {
    /// The exit codes every command keeps to; the README's table, `--help` and the man page all show this list, and
    /// ExitCodeTests makes each code happen.
    static let exitCodes: [(Int32, String)] = [
        (0, "success"),
        (
            1,
            "the operation failed at run time ('vault unlock' with a wrong passphrase, 'trust --fingerprint' offered "
                + "another key, 'forward start' found a port in use; 'run' and 'cp': a host's command or copy failed, "
                + "a canary failed, or Ctrl-C stopped it)"
        ),
        (
            2,
            "usage: unknown command or option, a missing or extra argument, an option without its value, a name "
                + "several hosts share, or a step that needs a confirming flag (--force, --yes, --recursive, "
                + "--allow-public-bind)"
        ),
        (3, "not found: no such host, group, identity, forward rule or vault item"),
        (
            4,
            "invalid data: a value that is not acceptable (a port outside 1-65535, a name in use, a bad address, spec "
                + "or descriptor), or problems found in the data ('sshelf check', 'sshelf vault audit', an ssh_config "
                + "import)"
        ),
        (5, "storage: the store or the vault cannot be used (missing, damaged, foreign, newer, or readable by others)"),
        (
            255,
            "connect, exec, trust, forward start, warm serve: the connection or the login failed, or was cut; "
                + "otherwise connect and exec exit with the remote command's status; run and cp: a host was not "
                + "reached, its key was refused, its login failed, its connection was lost mid-command or it timed out "
                + "(a command's own non-zero exit is 1)"
        ),
    ]

    /// The first five minutes, in order: what `--help` opens with and the README's first screen repeats
    /// (GettingStartedTests holds the two to each other).
    static let gettingStarted = """
          sshelf import ssh-config --dry-run   what your ~/.ssh/config would add (then again without --dry-run)
          sshelf                               open the TUI: browse, / to search, Enter connects, ? for the keys
          sshelf vault unlock                  unlock the vault once for this login (it asks for the passphrase)
          sshelf ssh-config install            ssh, scp, rsync and git reach sshelf's hosts and vault keys
          sshelf service install               the agent, forwards and sync keep running in the background

        """

    static func overview(_ table: [CommandSpec]) -> String {
        var out = """
            sshelf \(AppVersion.version) — a keyboard-driven SSH host manager

            usage: sshelf COMMAND [OPTIONS] [ARGS]
                   sshelf COMMAND --help

            getting started:
            \(gettingStarted)
            commands:

            """
        let width = table.map(\.name.count).max() ?? 10
        for command in table where !command.summary.isEmpty {
            out += "  \(command.name.padded(to: width + 2))\(command.summary)\n"
        }
        out += "\nenvironment:\n"
        out += "  SSHELF_HOME   keep every sshelf file under this folder instead of the XDG folders\n"
        out += "  NO_COLOR      turn colour off\n"
        out += "  SSHELF_VAULT_NO_KEYRING=1    keep afterFirstUnlock keys in-process (no kernel keyring)\n"
        out += "  SSHELF_VAULT_IDLE_SECONDS=N  relock whenUnlocked vault items after N idle seconds (default 900)\n"
        out += "\nexit codes:\n"
        for (code, meaning) in exitCodes { out += "  \(code)  \(meaning)\n" }
        return out
    }

    static func group(_ prefix: [String], _ children: [CommandSpec]) -> String {
        let width = children.map(\.name.count).max() ?? 10
        var out = "usage: sshelf \(prefix.joined(separator: " ")) SUBCOMMAND ...\n\nsubcommands:\n"
        for command in children {
            out += "  \(command.name.padded(to: width + 2))\(command.summary)\n"
        }
        return out
    }

    static func command(_ command: CommandSpec) -> String {
        var out = "usage: \(command.usage)\n\n\(command.summary)\n"
        if !command.details.isEmpty { out += "\n\(command.details)\n" }
        if !command.arguments.isEmpty {
            out += "\narguments:\n"
            let width = command.arguments.map(\.name.count).max() ?? 0
            for argument in command.arguments {
                out += "  \(argument.name.padded(to: width + 2))\(argument.help)\n"
            }
        }
        let options = command.options + [ArgumentParser.globalHelp]
        out += "\noptions:\n"
        let labels = options.map(optionLabel)
        let width = labels.map(\.count).max() ?? 0
        for (option, label) in zip(options, labels) {
            out += "  \(label.padded(to: width + 2))\(option.help)\n"
        }
        if !command.examples.isEmpty {
            out += "\nexamples:\n" + command.examples.map { "  \($0)\n" }.joined()
        }
        return out
    }

    static func optionLabel(_ option: OptionSpec) -> String {
        var label = option.short.map { "-\($0), " } ?? "    "
        label += "--\(option.name)"
        if let value = option.value { label += " \(value)" }
        if option.repeatable { label += "..." }
        return label
    }
}
