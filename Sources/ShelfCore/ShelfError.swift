// ShelfError: the one error shape users see: what went wrong, and (where the user can act) a hint.
// Each kind maps to a documented exit code; ShelfError(from:) (ShelfOperations) makes one from any failure.
import FoundationEssentials

public struct ShelfError: Error, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// Bad command line: unknown command or flag, missing or extra argument, a flag without its value, a name that
        /// picks more than one record, or a step that needs a confirming flag (--force, --yes, --allow-public-bind).
        case usage
        /// The named host, group, identity or rule does not exist.
        case notFound
        /// A value was given but is not acceptable (a port out of range, not a number, a name in use, a bad spec), or
        /// data read has problems (a cycle, a broken ssh_config line).
        case invalid
        /// The store or vault cannot be used as it is (corrupt, foreign, loose permissions, newer format).
        case storage
        /// Anything else that failed at run time.
        case failure
        /// The SSH connection failed or was cut (exit 255, as ssh's own).
        case connection
    }

    public var kind: Kind
    public var message: String
    public var hint: String?
    /// A library's own diagnostic, printed on a line of its own ("libssh2: …").
    public var detail: String?
    /// The hint as data, when its producer gave it so (Hint): each face words it; `hint` holds its face-neutral words.
    public var guidance: Hint?

    public init(_ kind: Kind, _ message: String, hint: String? = nil) {
        self.kind = kind
        self.message = message
        self.hint = hint
    }

    public var description: String { message }

    /// Exit codes, as documented in `sshelf --help`, the man page and the README.
    public var exitCode: Int32 {
        switch kind {
        case .failure: 1
        case .usage: 2
        case .notFound: 3
        case .invalid: 4
        case .storage: 5
        case .connection: 255
        }
    }

    public static func invalid(_ errors: [ValidationError]) -> ShelfError {
        ShelfError(.invalid, errors.map(\.message).joined(separator: "; "))
    }
}
