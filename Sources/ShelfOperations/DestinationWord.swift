// DestinationWord: `sshelf add NAME DESTINATION` — the address as ssh takes it on its command line,
// `[USER@]HOST`, or as an ssh URI, `ssh://[USER@]HOST[:PORT]`; `[USER@]HOST:PORT` too (what the host list shows),
// with an IPv6 address in brackets when a port follows it. The user is everything before the last '@', as for ssh.
import FoundationEssentials
import ShelfCore

public enum DestinationWord {
    public struct Parts: Equatable, Sendable {
        public var user: String?
        public var hostname: String
        public var port: Int?
    }

    public static func parse(_ text: String) throws -> Parts {
        let shown = Display.safe(text)
        var rest = Substring(text)
        if rest.hasPrefix("ssh://") {
            rest = rest.dropFirst(6)
            if rest.hasSuffix("/") { rest = rest.dropLast() }
            guard !rest.contains("/") else {
                throw ShelfError(.invalid, "'\(shown)': an ssh:// address has no path", hint: example)
            }
        }
        var user: String? = nil
        if let at = rest.lastIndex(of: "@") {
            user = String(rest[..<at])
            rest = rest[rest.index(after: at)...]
            guard user?.isEmpty == false else {
                throw ShelfError(.invalid, "'\(shown)' has nothing before its '@' (the user)", hint: example)
            }
        }
        var port: Substring? = nil
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else {
                throw ShelfError(.invalid, "'\(shown)' opens a '[' it does not close", hint: example)
            }
            let after = rest[rest.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else {
                throw ShelfError(
                    .invalid, "'\(shown)' has '\(Display.safe(String(after)))' after its ']'", hint: example)
            }
            if !after.isEmpty { port = after.dropFirst() }
            rest = rest[rest.index(after: rest.startIndex)..<close]
        } else if rest.filter({ $0 == ":" }).count == 1, let colon = rest.firstIndex(of: ":") {
            // One colon is a port; more are an IPv6 address written bare (then no port can follow it).
            port = rest[rest.index(after: colon)...]
            rest = rest[..<colon]
        }
        guard !rest.isEmpty else { throw ShelfError(.invalid, "'\(shown)' names no host", hint: example) }
        var parts = Parts(user: user, hostname: String(rest), port: nil)
        if let port {
            guard let number = Int(port), (1...65535).contains(number), port.allSatisfy(\.isNumber) else {
                throw ShelfError(.invalid, "'\(shown)': '\(Display.safe(String(port)))' is not a port (1-65535)")
            }
            parts.port = number
        }
        return parts
    }

    static let example = "e.g. deploy@db1.example.com, deploy@db1.example.com:2222 or deploy@[2001:db8::1]:2222"
}
