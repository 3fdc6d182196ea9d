// ShellWord: a name as one shell word, for the commands that messages and hints suggest — quoted only when a shell
// would split or expand it (`sshelf edit 'my host' --jump …`), so a hint can be pasted as it is.
import FoundationEssentials

public enum ShellWord {
    public static func quote(_ text: String) -> String {
        let plain =
            !text.isEmpty
            && text.unicodeScalars.allSatisfy { scalar in
                TextTrim.isAlphanumeric(scalar) || "-_.@/+:,=%".unicodeScalars.contains(scalar)
            }
        return plain ? text : "'" + text.replacing("'", with: "'\\''") + "'"
    }
}
