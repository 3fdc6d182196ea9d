// Reachability: whether a host answers a TCP connect — what is probed for a host (its address, or its first jump
// hop's), the outcome, and the words the TUI column and `sshelf list --reachable` show for it.
import FoundationEssentials

/// Where a reachability probe connects: the host's own address, or the first hop of its jump chain (`via`).
public struct ProbeTarget: Hashable, Sendable {
    public var hostname: String
    public var port: Int
    /// The first jump host's name when the host is reached through a jump chain.
    public var via: String?

    public init(hostname: String, port: Int, via: String? = nil) {
        self.hostname = hostname
        self.port = port
        self.via = via
    }

    /// The target for row `row` of `table`: its first jump host's address when it has a jump chain (nothing is
    /// sent to the hops, so the rest of the chain is not looked at), else its own; the name when no hostname is
    /// set, as ssh does. Nil for a jump host that is missing from the table, or an unresolved ProxyJump that
    /// names no address.
    public static func of(_ table: HostTable, row: Int) -> ProbeTarget? {
        if let first = table.jumpHostIDs(row).first {
            guard let hop = table.index(of: first) else { return nil }
            let own = direct(table, row: hop)
            return ProbeTarget(hostname: own.hostname, port: own.port, via: table.name(hop))
        }
        if let unresolved = table.rareRecord(row)[.unresolvedJump], !unresolved.isEmpty { return proxyJump(unresolved) }
        return direct(table, row: row)
    }

    static func direct(_ table: HostTable, row: Int) -> ProbeTarget {
        let hostname = table.hostname(row)
        return ProbeTarget(hostname: hostname.isEmpty ? table.name(row) : hostname, port: table.port(row))
    }

    /// The first hop of a ProxyJump value (`[user@]host[:port],...`, IPv6 in brackets) that names no known host.
    static func proxyJump(_ value: String) -> ProbeTarget? {
        let first = value.split(separator: ",").first.map(String.init) ?? ""
        var address = first.split(separator: "@").last.map(String.init) ?? ""
        var port = Host.defaultPort
        if address.hasPrefix("["), let close = address.firstIndex(of: "]") {
            let rest = address[address.index(after: close)...]
            if rest.hasPrefix(":"), let number = Int(rest.dropFirst()) { port = number }
            address = String(address[address.index(after: address.startIndex)..<close])
        } else if address.filter({ $0 == ":" }).count == 1, let colon = address.firstIndex(of: ":") {
            port = Int(address[address.index(after: colon)...]) ?? port
            address = String(address[..<colon])
        }
        guard !address.isEmpty, (1...65535).contains(port) else { return nil }
        return ProbeTarget(hostname: address, port: port, via: first)
    }
}

/// Why a probe found no answer.
public enum ProbeFailure: Sendable, Equatable {
    case refused
    case timeout
    case noSuchName
    case unreachable
    /// A jump host the chain names is not in the store.
    case missingJump
    case other(String)

    /// A word or two for a narrow column (at most 8 characters for the known failures).
    public var shortWords: String {
        switch self {
        case .noSuchName: "no name"
        case .missingJump: "no jump"
        default: words
        }
    }

    public var words: String {
        switch self {
        case .refused: "refused"
        case .timeout: "timeout"
        case .noSuchName: "no such name"
        case .unreachable: "no route"
        case .missingJump: "jump host missing"
        case .other(let text): text
        }
    }
}

/// What is known of a host's reachability.
public enum Reachability: Sendable, Equatable {
    /// Not probed yet (or not for a while: the result was dropped once the host left the screen).
    case unknown
    /// The first probe is under way (a refresh keeps showing the last result instead).
    case probing
    /// The TCP handshake completed in this many milliseconds.
    case up(milliseconds: Double)
    case down(ProbeFailure)

    /// `up 0.3 ms`, `down: refused`, `probing`, `?` — the same words in the TUI column and the CLI table.
    public var words: String {
        switch self {
        case .unknown: "?"
        case .probing: "probing"
        case .up(let milliseconds): "up \(Reachability.format(milliseconds))"
        case .down(let failure): "down: \(failure.words)"
        }
    }

    /// The narrow column's words (8 characters at most but for an unusual error): `0.3 ms`, `refused`, `no name`,
    /// `probing`, `?` — the colour tells up from down.
    public var shortWords: String {
        switch self {
        case .unknown, .probing: words
        case .up(let milliseconds): Reachability.format(milliseconds)
        case .down(let failure): failure.shortWords
        }
    }

    /// Probes under way at once, in the TUI and in `list --reachable`.
    public static let concurrency = 16
    /// Seconds a probe waits for the handshake (per address), unless `list --timeout` says otherwise.
    public static let timeoutSeconds = 3.0

    /// `0.3 ms` under 10 ms, `42 ms` above.
    public static func format(_ milliseconds: Double) -> String {
        guard milliseconds < 9.95 else { return "\(Int(milliseconds.rounded())) ms" }
        let tenths = Int((max(0, milliseconds) * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) ms"
    }

    /// The words with ` via HOP` when the probe went to the first jump host.
    public func words(via: String?) -> String {
        guard let via, self != .unknown else { return words }
        return "\(words) via \(via)"
    }
}
