// ProxyCommandTokens: OpenSSH's ProxyCommand tokens (%h %p %r %n %%) expanded so that no host field can reach the
// shell as syntax (the class of CVE-2023-51385): a value holding a shell metacharacter is refused, by the rules
// every entry point validates with (Validation: OpenSSH's own ssh_valid_hostname / ssh_valid_ruser), and any other
// value is quoted for the place it lands in the command — bare, inside '…' or inside "…" — so it arrives as one
// literal word whatever it holds (a glob character, a backslash in DOMAIN\user).
import FoundationEssentials

public enum ProxyCommandTokens {
    /// What the tokens stand for: the hop's address, port, login user (may be empty) and name as the user types it.
    public struct Values: Sendable {
        public var hostname: String
        public var port: Int
        public var user: String
        public var name: String

        public init(hostname: String, port: Int, user: String, name: String) {
            self.hostname = hostname
            self.port = port
            self.user = user
            self.name = name
        }
    }

    /// Why a command was not expanded: nothing has run.
    public struct Refusal: Error, Equatable, Sendable {
        public var message: String
        public var hint: String
    }

    /// Where in the command's shell syntax a character sits.
    private enum Quoting { case bare, single, double }

    /// The command with its tokens replaced, ready for `/bin/sh -c`; a refused value or an unknown token throws.
    public static func expand(_ command: String, _ values: Values) throws(Refusal) -> String {
        var out = String.UnicodeScalarView()
        var quoting = Quoting.bare
        var escaped = false
        var scalars = command.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            guard scalar == "%" else {
                out.append(scalar)
                track(scalar, &quoting, &escaped)
                continue
            }
            let token = scalars.next()
            let value: String
            switch token {
            case "%":
                out.append("%")
                escaped = false
                continue
            case "p": value = String(values.port)
            case "h": value = try checked(values.hostname, token: "h", field: "hostname", Validation.hostnameProblem)
            case "r": value = try checked(values.user, token: "r", field: "user", userProblem)
            case "n": value = try checked(values.name, token: "n", field: "name", Validation.sshArgumentProblem)
            default:
                throw Refusal(
                    message: "uses %\(token.map(String.init) ?? ""), which is not a ProxyCommand token",
                    hint: "ProxyCommand takes %h (address), %p (port), %r (user), %n (name) and %% (a percent sign)")
            }
            if escaped, !value.isEmpty, !isPlain(value) {
                throw Refusal(
                    message:
                        "has %\(token.map(String.init) ?? "") right after a '\\', which would escape only the first "
                        + "character of '\(value)'",
                    hint: "take the '\\' out of the ProxyCommand")
            }
            out.append(contentsOf: quoted(value, in: escaped ? .bare : quoting).unicodeScalars)
            escaped = false
        }
        return String(out)
    }

    /// The value as it must be written where it lands, so the shell reads back exactly the value. Only values the
    /// checks let through come here: none holds a single quote, so '…' always closes where it should.
    private static func quoted(_ value: String, in quoting: Quoting) -> String {
        switch quoting {
        case .single: return value
        case .double:
            var out = ""
            for character in value {
                if "$`\"\\".contains(character) { out.append("\\") }
                out.append(character)
            }
            return out
        case .bare: return value.isEmpty || isPlain(value) ? value : "'" + value + "'"
        }
    }

    /// Letters, digits and the punctuation no shell gives a meaning inside a word (what ShellWord leaves unquoted).
    static func isPlain(_ value: String) -> Bool {
        value.unicodeScalars.allSatisfy { TextTrim.isAlphanumeric($0) || "-_.@/+:,=%".unicodeScalars.contains($0) }
    }

    /// Follows the shell's quoting through the command's own text: `\` escapes outside '…', '…' takes everything
    /// literally, "…" ends at an unescaped '"'.
    private static func track(_ scalar: Unicode.Scalar, _ quoting: inout Quoting, _ escaped: inout Bool) {
        if escaped {
            escaped = false
            return
        }
        switch (quoting, scalar) {
        case (.bare, "\\"), (.double, "\\"): escaped = true
        case (.bare, "'"): quoting = .single
        case (.bare, "\""): quoting = .double
        case (.single, "'"), (.double, "\""): quoting = .bare
        default: break
        }
    }

    /// The user token: empty is allowed (the command gets nothing, as in OpenSSH), anything else by the user rules.
    private static func userProblem(_ user: String) -> String? {
        user.isEmpty ? nil : Validation.userProblem(user).map { $0.hasPrefix("user ") ? String($0.dropFirst(5)) : $0 }
    }

    private static func checked(_ value: String, token: Character, field: String, _ problem: (String) -> String?)
        throws(Refusal) -> String
    {
        guard let why = problem(value) else { return value }
        throw Refusal(
            message: "cannot put the \(field) '\(value)' into %\(token): it \(why)",
            hint:
                "nothing was run; correct the host's \(field) (sshelf edit), or take %\(token) out of the ProxyCommand")
    }
}
