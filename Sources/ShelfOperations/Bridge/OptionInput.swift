// OptionInput: an option line typed by the user (`--option 'ServerAliveInterval 30'`), checked before it is kept: a
// line sshelf would not write (a modelled keyword, a control character, no value) and a line the installed ssh
// refuses are errors that say what is wrong, since a refused line in the bridge would stop every ssh command.
import FoundationEssentials
import ShelfCore

public enum OptionInput {
    /// Throws for the first line that cannot be kept.
    public static func check(_ lines: [String], flag: String = "--option") throws {
        for line in lines {
            if let problem = SSHOption.problem(line) {
                throw ShelfError(
                    .invalid, "\(flag) '\(Display.safe(line))': \(problem)",
                    hint: "give one ssh_config line as 'Keyword value', e.g. --option 'ServerAliveInterval 30'")
            }
            if let refusal = OpenSSHOptionCheck.refusal(line) {
                throw ShelfError(
                    .invalid, "\(flag) '\(Display.safe(line))': ssh refuses it: \(Display.safe(refusal))",
                    hint: "sshelf keeps only lines this ssh reads (see 'man ssh_config')")
            }
        }
    }

    /// `lines` with the typed options set and keywords removed; a keyword to remove that is not there is an error.
    public static func apply(to lines: [String], setting new: [String], removing keys: [String], owner: String) throws
        -> [String]
    {
        try check(new)
        return try edited(lines, setting: new, removing: keys, owner: owner)
    }

    /// `apply` without checking the typed options (for a caller that checked them its own way).
    public static func edited(_ lines: [String], setting new: [String], removing keys: [String], owner: String) throws
        -> [String]
    {
        let (edited, notFound) = SSHOption.edited(lines, setting: new, removing: keys)
        if let missing = notFound.first {
            throw ShelfError(
                .notFound, "\(Display.safe(owner)) has no option '\(Display.safe(missing))'",
                hint: lines.isEmpty
                    ? "it has no options"
                    : "its options: "
                        + lines.compactMap { SSHOption(line: $0)?.keyword }.map(Display.safe).joined(separator: ", "))
        }
        return edited
    }
}
