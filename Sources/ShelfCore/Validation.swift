// Validation: the field rules of the model and the cross-record checks (cycles, dangling references), each
// with a message precise enough to act on.
import FoundationEssentials

public struct ValidationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The field the problem is in, in the user's words (`port`, `hostname`, `jump`).
    public var field: String
    public var message: String

    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }

    public var description: String { message }
}

public enum Validation {
    public static let maxNameLength = 256
    public static let maxHostnameLength = 255
    public static let maxFieldLength = 1024
    public static let maxNotesLength = 64 * 1024
    public static let maxTagLength = 64
    public static let maxTags = 64
    public static let maxJumpChain = 16

    /// A character that must never reach a terminal or a config file from a stored field: C0/C1 controls
    /// (escape sequences) and the bidirectional overrides that can make text read differently than it is.
    public static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        // ASCII first: no Unicode property lookup for the common case (imports check 100,000 hosts).
        if scalar.value < 0x80 { return scalar.value < 0x20 || scalar.value == 0x7F }
        if scalar.properties.generalCategory == .control { return true }
        // The line and paragraph separators too: some editors and terminals end a line there.
        return (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
            || scalar.value == 0x2028 || scalar.value == 0x2029
    }

    /// How the bytes of `text` look, in one pass over its UTF-8 (imports check 100,000 hosts, several fields each).
    struct Shape {
        var ascii = true
        var printable = true
        var whitespace = false
        var blank = true

        init(_ text: String) {
            var text = text
            text.withUTF8 { bytes in
                for byte in bytes {
                    if byte >= 0x80 { ascii = false }
                    if byte < 0x20 || byte == 0x7F || byte >= 0x80 { printable = false }
                    if byte == 0x20 || (0x09...0x0D).contains(byte) { whitespace = true }
                    if byte != 0x20 && byte != 0x09 { blank = false }
                }
            }
        }
    }

    /// True when `text` has whitespace (for ASCII text without walking Characters: tab to CR, and space).
    static func hasWhitespace(_ text: String) -> Bool {
        let shape = Shape(text)
        return shape.ascii ? shape.whitespace : text.contains { $0.isWhitespace }
    }

    /// True when `text` is empty or only blanks (what `trimmingCharacters(in: .whitespaces)` would empty).
    static func isBlank(_ text: String) -> Bool {
        let shape = Shape(text)
        return shape.ascii ? shape.blank : text.trimmingSpaces().isEmpty
    }

    public static func controlCharacterProblem(_ text: String, allowNewlines: Bool = false) -> String? {
        if Shape(text).printable { return nil }
        for scalar in text.unicodeScalars where isForbidden(scalar) {
            if allowNewlines, scalar == "\n" || scalar == "\t" { continue }
            return "contains a control character (U+\(String(scalar.value, radix: 16, uppercase: true).leftPadded(4)))"
        }
        return nil
    }

    public static func nameProblem(_ name: String, what: String = "name") -> String? {
        if isBlank(name) { return "\(what) is empty" }
        if name.utf8.count > maxNameLength { return "\(what) is longer than \(maxNameLength) bytes" }
        if let problem = controlCharacterProblem(name) { return "\(what) \(problem)" }
        return nil
    }

    /// The characters OpenSSH (>= 9.6, `ssh_valid_hostname` in readconf.c) refuses in a host name that reaches a
    /// %-token (' ` " $ \ ; & < > | ( ) { } ,): each is shell syntax, and tokens go into ProxyCommand, LocalCommand
    /// and Match exec unquoted. A switch, not a set: imports check 100,000 hosts.
    static func isHostnameMetacharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x22, 0x24, 0x26, 0x27, 0x28, 0x29, 0x2C, 0x3B, 0x3C, 0x3E, 0x5C, 0x60, 0x7B, 0x7C, 0x7D: true
        default: false
        }
    }

    /// OpenSSH's set for a remote user (`ssh_valid_ruser`): the same but for `$`, `\` (not last) and `,`.
    static func isUserMetacharacter(_ byte: UInt8) -> Bool {
        byte != 0x24 && byte != 0x5C && byte != 0x2C && isHostnameMetacharacter(byte)
    }

    /// A hostname or address ssh can be pointed at. A leading '-' is refused because it would be read as an
    /// option by ssh and scp when the value is exported or passed on; shell syntax because the value reaches
    /// ProxyCommand's %h (the rule is OpenSSH's, CVE-2023-51385).
    public static func hostnameProblem(_ hostname: String) -> String? {
        if hostname.isEmpty { return "is empty" }
        if hostname.utf8.count > maxHostnameLength { return "is longer than \(maxHostnameLength) bytes" }
        return sshArgumentProblem(hostname)
    }

    /// What a hostname typed by hand (`--host`, the form's Hostname) holds that belongs in another field: a user
    /// (`deploy@db1`), a port (`db1:2222`; more colons are an IPv6 address), or an IPv6 address's brackets
    /// (`[::1]`, as a destination writes it before a port). Nil for a plain name or address. Not a rule of the model:
    /// ssh_config's HostName is imported as written.
    public static func misplacedInHostname(_ hostname: String) -> String? {
        if hostname.contains("@") { return "a user ('\(hostname.prefix { $0 != "@" })@')" }
        if hostname.hasPrefix("[") || hostname.hasSuffix("]") { return "brackets (an IPv6 address goes without them)" }
        if hostname.filter({ $0 == ":" }).count == 1 {
            return "a port (':\(hostname.drop { $0 != ":" }.dropFirst())')"
        }
        return nil
    }

    /// What `ssh_valid_hostname` refuses, in words: a value ssh itself refuses as a host on its command line, and
    /// that the %h and %n tokens must never carry into a shell.
    public static func sshArgumentProblem(_ value: String) -> String? {
        if let problem = controlCharacterProblem(value) { return problem }
        if hasWhitespace(value) { return "contains whitespace" }
        if value.hasPrefix("-") { return "starts with '-'" }
        if let found = value.utf8.first(where: isHostnameMetacharacter) { return metacharacter(found) }
        return nil
    }

    public static func userProblem(_ user: String) -> String? {
        if user.utf8.count > maxNameLength { return "user is longer than \(maxNameLength) bytes" }
        if let problem = controlCharacterProblem(user) { return "user \(problem)" }
        if hasWhitespace(user) { return "user contains whitespace" }
        if user.hasPrefix("-") { return "user starts with '-'" }
        if let found = user.utf8.first(where: isUserMetacharacter) { return "user \(metacharacter(found))" }
        if user.hasSuffix("\\") { return "user ends with '\\', which would escape what follows it in a shell" }
        return nil
    }

    static func metacharacter(_ byte: UInt8) -> String {
        "contains \(byte == 0x27 ? "\"'\"" : "'\(Character(Unicode.Scalar(byte)))'"), which a shell reads as syntax "
            + "(OpenSSH refuses it too: such a value reaches ProxyCommand through %h, %r and %n)"
    }

    /// A ProxyJump value kept as text (`[user@]host[:port]`, comma-separated, or ssh:// URIs): OpenSSH hands a hop
    /// to a shell (`ssh -W … HOP`), so only the characters of names, addresses and ports are allowed.
    public static func jumpTextProblem(_ text: String) -> String? {
        if let problem = controlCharacterProblem(text) { return "ProxyJump \(problem)" }
        if let bad = text.unicodeScalars.first(where: {
            !(TextTrim.isAlphanumeric($0) || "-_.@:[]/%,".unicodeScalars.contains($0))
        }) {
            return "ProxyJump '\(text)' contains '\(bad)', which a jump hop cannot have"
        }
        if text.split(separator: ",", omittingEmptySubsequences: false).contains(where: { $0.hasPrefix("-") }) {
            return "ProxyJump '\(text)' has a hop starting with '-'"
        }
        return nil
    }

    public static func portProblem(_ port: Int, what: String = "port") -> String? {
        (1...65535).contains(port) ? nil : "\(what) \(port) is out of range (1-65535)"
    }

    public static func tagProblem(_ tag: String) -> String? {
        if tag.isEmpty { return "tag is empty" }
        if tag.utf8.count > maxTagLength { return "tag '\(tag.prefix(20))…' is longer than \(maxTagLength) bytes" }
        if let problem = controlCharacterProblem(tag) { return "tag \(problem)" }
        if tag.contains(where: { $0.isWhitespace || $0 == "," }) { return "tag '\(tag)' contains whitespace or ','" }
        return nil
    }

    /// A host's problems, field by field as its table declares them (HostFields).
    public static func problems(_ host: Host) -> [ValidationError] { HostFields.table.problems(host) }

    public static func problems(_ group: HostGroup) -> [ValidationError] {
        var found: [ValidationError] = []
        if let problem = nameProblem(group.name, what: "group name") {
            found.append(ValidationError(field: "name", message: problem))
        } else if group.name.contains("/") {
            found.append(
                ValidationError(
                    field: "name", message: "group name '\(group.name)' contains '/', which separates groups in a path")
            )
        }
        if group.parentID == group.id {
            found.append(ValidationError(field: "parent", message: "group '\(group.name)' is its own parent"))
        }
        if group.notes.utf8.count > maxNotesLength {
            found.append(ValidationError(field: "notes", message: "notes are longer than \(maxNotesLength) bytes"))
        }
        return found
    }

    /// A year: longer than any login session, short enough to be a deliberate choice.
    public static let maximumAgentLifetime = 366 * 86_400

    public static func problems(_ identity: Identity) -> [ValidationError] {
        var found: [ValidationError] = []
        if let problem = nameProblem(identity.name, what: "identity name") {
            found.append(ValidationError(field: "name", message: problem))
        }
        if identity.publicKey.utf8.count > 16 * 1024 {
            found.append(ValidationError(field: "publicKey", message: "public key is longer than 16 KiB"))
        }
        if let problem = controlCharacterProblem(identity.publicKey) {
            found.append(ValidationError(field: "publicKey", message: "public key \(problem)"))
        }
        if !(0...maximumAgentLifetime).contains(identity.agentLifetime) {
            found.append(
                ValidationError(
                    field: "agentLifetime",
                    message: "agent lifetime must be 0 (no limit) to \(maximumAgentLifetime) seconds"))
        }
        if identity.keyFile.utf8.count > 4096 {
            found.append(ValidationError(field: "keyFile", message: "key file path is longer than 4096 bytes"))
        }
        if let problem = controlCharacterProblem(identity.keyFile) {
            found.append(ValidationError(field: "keyFile", message: "key file path \(problem)"))
        }
        return found
    }

    public static func problems(_ rule: PortForwardRule) -> [ValidationError] {
        var found: [ValidationError] = []
        func add(_ field: String, _ message: String?) {
            if let message { found.append(ValidationError(field: field, message: message)) }
        }
        if !rule.kind.isKnown { add("kind", "unknown forward kind '\(rule.kind.rawValue)'") }
        let spec = rule.spec
        if spec.hasSocket {
            // A unix socket at one end (ForwardSpec): its path, and the host or address at the other end.
            add(spec.targetIsSocket ? "targetHost" : "bindAddress", ForwardSpec.socketProblem(spec))
            if !spec.listensOnSocket { add("bindPort", portProblem(rule.bindPort, what: "bind port")) }
            if !spec.targetIsSocket { add("targetPort", portProblem(rule.targetPort, what: "target port")) }
        } else {
            add("bindPort", portProblem(rule.bindPort, what: "bind port"))
            if rule.bindAddress != "*" {
                add("bindAddress", hostnameProblem(rule.bindAddress).map { "bind address \($0)" })
            }
            if rule.kind != .dynamic {
                add("targetHost", hostnameProblem(rule.targetHost).map { "target host \($0)" })
                add("targetPort", portProblem(rule.targetPort, what: "target port"))
            }
        }
        if !rule.name.isEmpty { add("name", controlCharacterProblem(rule.name).map { "name \($0)" }) }
        if !(1...PortForwardRule.sessionLimit).contains(rule.sessions) {
            add("sessions", "sessions must be 1 to \(PortForwardRule.sessionLimit), not \(rule.sessions)")
        } else if rule.sessions > 1, rule.kind == .remote {
            add("sessions", "sessions applies to -L and -D rules (for -R the server picks the session), not -R")
        }
        return found
    }
}

extension String {
    func leftPadded(_ width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
