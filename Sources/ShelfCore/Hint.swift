// Hint: what to do about a failure, as data each face words itself — ways to do it, any one enough, each made of
// parts: plain words, a sshelf command with its arguments, a file, the vault passphrase to give (PassphraseNeed). The
// CLI prints a command as it is typed and takes the passphrase on --passphrase-fd (CLIErrorHints); the TUI names its
// key where it has one (V: unlock the vault) and leaves other commands as typed (TUIErrorLine), saying a way once
// when two come to the same key. `words` is the face-neutral reading, which ShelfError.hint carries for whatever
// shows a hint without a face's own wording (logs, saved reports).
public struct Hint: Sendable, Equatable, Codable {
    public enum Part: Sendable, Equatable, Codable {
        /// Words every face shows as they are.
        case text(String)
        /// `sshelf` with these arguments.
        case command([String])
        /// A file the user can look at or edit.
        case file(String)
        /// The vault passphrase, given as each face takes it.
        case passphrase(PassphraseNeed)
    }

    /// The ways to do it, any one of which is enough ("A, or B").
    public var ways: [[Part]]

    public init(_ parts: Part...) { ways = [parts] }

    /// This hint with one more way.
    public func or(_ parts: Part...) -> Hint {
        var hint = self
        hint.ways.append(parts)
        return hint
    }

    /// The hint with each part worded by `face` (a part it returns nil for keeps its face-neutral words), each way
    /// said once.
    public func worded(by face: (Part) -> String?) -> String {
        var said: [String] = []
        for way in ways {
            let text = way.map { face($0) ?? Self.neutral($0) }.joined()
            if !said.contains(text) { said.append(text) }
        }
        return said.joined(separator: ", or ")
    }

    /// The face-neutral words: a command as typed, a file by its path, a passphrase need's words.
    public var words: String { worded { _ in nil } }

    static func neutral(_ part: Part) -> String {
        switch part {
        case .text(let text): text
        case .command(let arguments): (["sshelf"] + arguments.map(ShellWord.quote)).joined(separator: " ")
        case .file(let path): ShellWord.quote(path)
        case .passphrase(let need): need.words
        }
    }
}

extension ShelfError {
    /// A failure whose hint is data: `guidance` for the faces to word, `hint` its face-neutral words.
    public init(_ kind: Kind, _ message: String, guidance: Hint) {
        self.init(kind, message, hint: guidance.words)
        self.guidance = guidance
    }
}
