// ForwardSpec: OpenSSH's forward syntax, parsed and printed: `[bind:]port:host:hostport` for -L/-R and
// `[bind:]port` for -D; IPv6 addresses in brackets; `*` binds every interface. A field with a `/` is a unix
// socket, as OpenSSH reads it: `5555:/var/run/docker.sock` (-L to a socket on the server), `-R /run/a.sock:/run/b.sock`
// (a socket on the server to one here); its port is 0.
import FoundationEssentials

public struct ForwardSpec: Hashable, Sendable, CustomStringConvertible {
    public var kind: ForwardKind
    public var bindAddress: String
    public var bindPort: Int
    public var targetHost: String
    public var targetPort: Int

    public init(kind: ForwardKind, bindAddress: String, bindPort: Int, targetHost: String, targetPort: Int) {
        self.kind = kind
        self.bindAddress = bindAddress
        self.bindPort = bindPort
        self.targetHost = targetHost
        self.targetPort = targetPort
    }

    /// The OpenSSH flag letter: L, R or D.
    public var flag: String {
        switch kind {
        case .local: "L"
        case .remote: "R"
        case .dynamic: "D"
        case .other(let raw): raw
        }
    }

    /// `bind:port` as OpenSSH writes it (brackets around IPv6).
    public var listenPart: String {
        listensOnSocket ? bindAddress : "\(Self.bracketed(bindAddress)):\(bindPort)"
    }

    /// `host:port` of the far end (or its socket path); empty for dynamic forwards.
    public var targetPart: String {
        kind == .dynamic ? "" : targetIsSocket ? targetHost : "\(Self.bracketed(targetHost)):\(targetPort)"
    }

    /// OpenSSH reads a forward's field with a `/` as a unix socket's path (never a host name or address).
    public static func isSocketPath(_ text: String) -> Bool { text.contains("/") }

    /// The far end is a unix socket (on the server for -L, here for -R).
    public var targetIsSocket: Bool { kind != .dynamic && Self.isSocketPath(targetHost) }

    /// The listening end is a unix socket (here for -L, on the server for -R).
    public var listensOnSocket: Bool { kind != .dynamic && Self.isSocketPath(bindAddress) }

    /// Whether either end is a unix socket.
    public var hasSocket: Bool { targetIsSocket || listensOnSocket }

    public var description: String {
        kind == .dynamic ? listenPart : "\(listenPart):\(targetPart)"
    }

    static func bracketed(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }

    /// Parses `[bind:]port:host:hostport` (local/remote) or `[bind:]port` (dynamic).
    public static func parse(_ text: String, kind: ForwardKind) throws(ValidationError) -> ForwardSpec {
        let fields = try splitFields(text)
        let flag = ForwardSpec(kind: kind, bindAddress: "", bindPort: 0, targetHost: "", targetPort: 0).flag
        let usage = kind == .dynamic ? "[bind:]port" : "[bind:]port:host:hostport or [bind:]port:/socket/path"
        func bad(_ why: String) -> ValidationError {
            ValidationError(field: "forward", message: "invalid -\(flag) spec '\(text)': \(why) (expected \(usage))")
        }
        if kind != .dynamic, fields.contains(where: isSocketPath) {
            return try parseSocket(fields, kind: kind, bad: bad)
        }
        var bind = PortForwardRule.defaultBindAddress
        var rest = fields[...]
        switch (kind, fields.count) {
        case (.dynamic, 1), (.local, 3), (.remote, 3): break
        case (.dynamic, 2), (.local, 4), (.remote, 4):
            bind = fields[0].isEmpty ? "*" : fields[0]
            rest = fields.dropFirst()
        default:
            throw bad("wrong number of fields")
        }
        guard let port = parsePort(rest.first ?? "") else {
            throw bad("bind port '\(rest.first ?? "")' is not a number between 1 and 65535")
        }
        var spec = ForwardSpec(kind: kind, bindAddress: bind, bindPort: port, targetHost: "", targetPort: 0)
        if kind != .dynamic {
            let host = rest.dropFirst().first ?? ""
            let portText = rest.dropFirst(2).first ?? ""
            guard !host.isEmpty else { throw bad("target host is empty") }
            guard let target = parsePort(portText) else {
                throw bad("target port '\(portText)' is not a number between 1 and 65535")
            }
            spec.targetHost = host
            spec.targetPort = target
        }
        if let problem = Validation.hostnameProblem(spec.bindAddress == "*" ? "localhost" : spec.bindAddress) {
            throw bad("bind address \(problem)")
        }
        if kind != .dynamic, let problem = Validation.hostnameProblem(spec.targetHost) {
            throw bad("target host \(problem)")
        }
        return spec
    }

    /// A spec with a unix socket at one end or both: `[bind:]port:/path`, `/path:host:hostport`, `/path:/path`.
    private static func parseSocket(_ fields: [String], kind: ForwardKind, bad: (String) -> ValidationError)
        throws(ValidationError) -> ForwardSpec
    {
        var spec = ForwardSpec(
            kind: kind, bindAddress: PortForwardRule.defaultBindAddress, bindPort: 0,
            targetHost: "", targetPort: 0)
        var listen = fields[...]
        if let last = fields.last, isSocketPath(last) {
            spec.targetHost = last
            listen = fields.dropLast()
        } else if fields.count == 3, isSocketPath(fields[0]) {
            guard let port = parsePort(fields[2]) else {
                throw bad("target port '\(fields[2])' is not a number between 1 and 65535")
            }
            spec.targetHost = fields[1]
            spec.targetPort = port
            listen = fields.prefix(1)
        } else {
            throw bad("a unix socket's path must be a whole field")
        }
        switch listen.count {
        case 1 where isSocketPath(listen[listen.startIndex]):
            spec.bindAddress = listen[listen.startIndex]
        case 1, 2:
            if listen.count == 2 { spec.bindAddress = listen.first!.isEmpty ? "*" : listen.first! }
            guard let port = parsePort(listen.last!) else {
                throw bad("bind port '\(listen.last!)' is not a number between 1 and 65535")
            }
            spec.bindPort = port
        default:
            throw bad("wrong number of fields")
        }
        if let problem = socketProblem(spec) { throw bad(problem) }
        return spec
    }

    /// What is wrong with a spec's socket paths and the host or address at its other end (nil when nothing).
    static func socketProblem(_ spec: ForwardSpec) -> String? {
        for (path, what) in [(spec.bindAddress, "listening socket"), (spec.targetHost, "target socket")]
        where isSocketPath(path) {
            if path.utf8.count > Validation.maxFieldLength { return "\(what) path is too long" }
            if let problem = Validation.controlCharacterProblem(path) { return "\(what) path \(problem)" }
        }
        if !spec.listensOnSocket, spec.bindAddress != "*",
            let problem = Validation.hostnameProblem(spec.bindAddress)
        {
            return "bind address \(problem)"
        }
        if !spec.targetIsSocket, let problem = Validation.hostnameProblem(spec.targetHost) {
            return "target host \(problem)"
        }
        return nil
    }

    /// ssh_config form: `LocalForward [bind:]port host:hostport` arrives as two arguments.
    public static func parseConfig(_ arguments: [String], kind: ForwardKind) throws(ValidationError) -> ForwardSpec {
        try parse(arguments.joined(separator: ":"), kind: kind)
    }

    static func parsePort(_ text: String) -> Int? {
        guard !text.isEmpty, text.count <= 5, text.allSatisfy(\.isASCIIDigit), let port = Int(text),
            (1...65535).contains(port)
        else { return nil }
        return port
    }

    /// Splits on ':' outside brackets; `[::1]` stays one field without its brackets.
    static func splitFields(_ text: String) throws(ValidationError) -> [String] {
        guard text.utf8.count <= Validation.maxFieldLength else {
            throw ValidationError(
                field: "forward", message: "forward spec is longer than \(Validation.maxFieldLength) bytes")
        }
        var fields: [String] = []
        var current = ""
        var inBrackets = false
        for ch in text {
            switch ch {
            case "[" where !inBrackets && current.isEmpty: inBrackets = true
            case "]" where inBrackets: inBrackets = false
            case ":" where !inBrackets:
                fields.append(current)
                current = ""
            default: current.append(ch)
            }
        }
        guard !inBrackets else {
            throw ValidationError(field: "forward", message: "invalid forward spec '\(text)': unclosed '['")
        }
        fields.append(current)
        return fields
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
