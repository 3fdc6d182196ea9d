// RunnerLine: one line a forward runner reports (`host: failed: why (what to do) (next attempt in 60.0 s)`), with
// what to do kept as data (a Hint) so each face words it where it prints the line: `forward up` on its stderr in
// the CLI's words, the service in its log in its own (ServiceHintWords). The runner itself words nothing; each
// printer passes the whole worded line through Display.safe (a hint may carry a name read from the store).
import ShelfCore

public struct RunnerLine: Sendable, Equatable {
    /// What happened, up to the hint.
    public var text: String
    /// What to do about it, as data; nil when the line needs nothing done.
    public var hint: Hint?
    /// What follows the hint (when the next attempt is).
    public var tail: String

    public init(_ text: String, hint: Hint? = nil, tail: String = "") {
        self.text = text
        self.hint = hint
        self.tail = tail
    }

    /// The line with its hint in a face's words, in parentheses after the text.
    public func worded(by face: (Hint) -> String) -> String {
        text + (hint.map { " (\(face($0)))" } ?? "") + tail
    }
}
