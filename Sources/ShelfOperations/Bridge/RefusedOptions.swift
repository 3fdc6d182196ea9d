// RefusedOptions: kept option lines the installed ssh refuses (an unknown keyword such as `Frobnicate yes`, a bad
// value), said in the same words wherever sshelf meets one — the import's warning, the bridge's warning, `check`'s
// problem and `show`'s note: OpenSSH itself rejects the line, so the ssh_config bridge leaves it out.
import FoundationEssentials
import ShelfCore

public enum RefusedOptions {
    /// What one refused line is, in the words every place uses.
    public static func words(_ line: String, why: String) -> String {
        "'\(Display.safe(line))': " + Display.safe(HostOptionSources.refusedWords(why))
    }

    /// The lines sshelf would write for `hosts` and `defaults` (each once), as the bridge shows them to ssh.
    public static func candidates(_ options: [[String]]) -> [String] {
        var lines: [String] = []
        var seen: Set<String> = []
        for list in options {
            for line in list where SSHOption.problem(line) == nil && seen.insert(line).inserted { lines.append(line) }
        }
        return lines
    }

    /// Each of those lines the installed ssh refuses, with its words (one `ssh -G` run; none without an ssh).
    /// `scratch` is a private folder for the file ssh reads.
    public static func refused(_ options: [[String]], scratch: String) -> [String: String] {
        OpenSSHOptionCheck.refused(candidates(options), scratch: scratch)
    }

    /// The record id `check` gives a defaults block's problem: blocks are not records of their own.
    static let defaultsID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    /// What `check` reports: each host's and each defaults block's refused lines, with the command that removes them.
    public static func problems(hosts: [ShelfCore.Host], defaults: [OptionDefaults], refused: [String: String])
        -> [ModelProblem]
    {
        guard !refused.isEmpty else { return [] }
        var problems: [ModelProblem] = []
        for host in hosts {
            for line in host.options {
                guard let why = refused[line], let option = SSHOption(line: line) else { continue }
                problems.append(
                    ModelProblem(
                        kind: .optionRefused, recordID: host.id,
                        message: "host '\(Display.safe(host.name))': \(words(line, why: why))",
                        fix: "sshelf edit \(ShellWord.quote(host.name)) --remove-option \(option.keyword)"))
            }
        }
        for block in defaults {
            for line in block.options {
                guard let why = refused[line], let option = SSHOption(line: line) else { continue }
                problems.append(
                    ModelProblem(
                        kind: .optionRefused, recordID: defaultsID,
                        message: "Host \(Display.safe(block.pattern)) (defaults): \(words(line, why: why))",
                        fix: "sshelf ssh-config defaults \(ShellWord.quote(block.pattern)) --remove-option "
                            + option.keyword))
            }
        }
        return problems
    }
}
