// ManPage: sshelf(1) in roff, generated from the command table (Resources/sshelf.1 is this output).
import FoundationEssentials

enum ManPage {
    static func escape(_ text: String) -> String {
        var out = text.replacing("\\", with: "\\e").replacing("-", with: "\\-")
        if out.hasPrefix(".") || out.hasPrefix("'") { out = "\\&" + out }
        return out
    }

    static func render(_ table: [CommandSpec]) -> String {
        var out = """
            .TH SSHELF 1 "" "sshelf \(AppVersion.version)" "User Commands"
            .SH NAME
            sshelf \\- keyboard\\-driven SSH host manager
            .SH SYNOPSIS
            .B sshelf
            .I COMMAND
            [\\fIOPTIONS\\fR] [\\fIARGS\\fR]
            .SH DESCRIPTION
            sshelf keeps SSH host groups, hosts and port\\-forward rules in a local store, resolves credentials \
            from a device\\-bound vault, and syncs between devices without letting a credential leave the \
            machine in plaintext. Every command accepts \\fB\\-\\-help\\fR.
            .SH COMMANDS

            """
        for command in table {
            out += ".SS \"\(escape(command.usage))\"\n\(escape(command.summary)).\n"
            if !command.details.isEmpty { out += ".PP\n\(escape(command.details))\n" }
            for argument in command.arguments {
                out += ".TP\n.I \(escape(argument.name))\n\(escape(argument.help))\n"
            }
            for option in command.options {
                var label = option.short.map { "\\fB\\-\($0)\\fR, " } ?? ""
                label += "\\fB\\-\\-\(escape(option.name))\\fR"
                if let value = option.value { label += " \\fI\(escape(value))\\fR" }
                out += ".TP\n\(label)\n\(escape(option.help))\n"
            }
            for example in command.examples { out += ".PP\n.nf\n\(escape(example))\n.fi\n" }
        }
        out += """
            .SH FILES
            .TP
            .I $XDG_DATA_HOME/sshelf/store.sqlite
            the config track: groups, hosts, identities (public parts), forward rules (mode 0600)
            .TP
            .I $XDG_DATA_HOME/sshelf/vault.sqlite
            the credential vault, separate from the store
            .TP
            .I $XDG_STATE_HOME/sshelf/device.key
            the device key; never synced or exported
            .SH ENVIRONMENT
            .TP
            .B SSHELF_HOME
            keep every file under this folder (data/, state/, config/, run/) instead of the XDG folders
            .TP
            .B NO_COLOR
            turn colour off
            .TP
            .B SSHELF_VAULT_NO_KEYRING=1
            keep afterFirstUnlock vault keys in the process that was given the passphrase instead of the kernel keyring
            .TP
            .B SSHELF_VAULT_IDLE_SECONDS
            relock whenUnlocked vault items after this many idle seconds (default 900)
            .TP
            .B SSHELF_REACHABILITY=off|on|auto
            whether the TUI starts with its reachability column, a TCP connect to each host on screen every 30 s: off \
            by default (unasked connections can trip an intrusion detector), auto shows it for stores of up to 1,000 \
            hosts; p shows or hides it either way
            .SH EXIT STATUS

            """
        for (code, meaning) in HelpText.exitCodes { out += ".TP\n.B \(code)\n\(escape(meaning))\n" }
        out += ".SH SEE ALSO\n.BR ssh (1),\n.BR ssh_config (5)\n"
        return out
    }
}
