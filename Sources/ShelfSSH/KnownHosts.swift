// KnownHosts: OpenSSH known_hosts files — parsed line by line (plain, hashed `|1|salt|hmac`, `[host]:port`,
// wildcards and negations, `@revoked`), with every line we cannot parse kept verbatim so a rewrite loses nothing.
import FoundationEssentials
import ShelfCore
import ShelfSystem

public struct KnownHostEntry: Sendable, Equatable {
    public enum Marker: String, Sendable { case revoked = "@revoked", certAuthority = "@cert-authority" }

    public var marker: Marker?
    /// The host-pattern field as written (comma-separated patterns, or one hashed entry).
    public var hosts: String
    public var key: HostKey
    public var comment: String
    /// The line as read, written back unchanged (tabs, spacing) when the entry is kept.
    var original: String? = nil

    public init(marker: Marker?, hosts: String, key: HostKey, comment: String) {
        self.marker = marker
        self.hosts = hosts
        self.key = key
        self.comment = comment
    }

    /// Whether this line names `lookupName` (`host`, or `[host]:port` for ports other than 22).
    public func matches(_ lookupName: String) -> Bool {
        if hosts.hasPrefix("|1|") { return KnownHostsFile.hashedMatch(hosts, lookupName) }
        var matched = false
        for pattern in hosts.split(separator: ",").map(String.init) {
            if pattern.hasPrefix("!") {
                if KnownHostsFile.wildcardMatch(String(pattern.dropFirst()), lookupName) { return false }
            } else if KnownHostsFile.wildcardMatch(pattern, lookupName) {
                matched = true
            }
        }
        return matched
    }

    var line: String {
        if let original { return original }
        var parts = [String]()
        if let marker { parts.append(marker.rawValue) }
        parts += [hosts, key.type, key.base64]
        if !comment.isEmpty { parts.append(comment) }
        return parts.joined(separator: " ")
    }
}

public struct KnownHostsFile: Sendable {
    public enum Line: Sendable, Equatable {
        case entry(KnownHostEntry)
        /// Comments, blank lines and anything we could not parse: written back exactly as read.
        case verbatim(String)
    }

    public var lines: [Line]

    public init(text: String) {
        lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { Self.parse(String($0)) }
        if text.hasSuffix("\n"), lines.last == .verbatim("") { lines.removeLast() }
        if text.isEmpty { lines = [] }
    }

    /// A missing file is an empty one; an unreadable one is reported.
    public static func load(_ path: String) throws(SSHError) -> KnownHostsFile {
        do {
            return KnownHostsFile(text: String(decoding: try RegularFile.read(path), as: UTF8.self))
        } catch {
            if error.kind == .missing { return KnownHostsFile(text: "") }
            throw SSHError(.invalidConfiguration, "cannot use \(error)", hint: "known_hosts must be a plain text file")
        }
    }

    public var entries: [KnownHostEntry] {
        lines.compactMap { if case .entry(let entry) = $0 { entry } else { nil } }
    }

    public var text: String {
        lines.map { line in
            switch line {
            case .entry(let entry): entry.line
            case .verbatim(let raw): raw
            }
        }.map { $0 + "\n" }.joined()
    }

    /// The name known_hosts files use for a host: bare for port 22, `[host]:port` otherwise.
    public static func lookupName(host: String, port: Int) -> String {
        port == 22 ? host : "[\(host)]:\(port)"
    }

    public func entries(for lookupName: String) -> [KnownHostEntry] {
        entries.filter { $0.matches(lookupName) }
    }

    public mutating func append(_ key: HostKey, for lookupName: String) {
        lines.append(.entry(KnownHostEntry(marker: nil, hosts: lookupName, key: key, comment: "")))
    }

    /// Removes the (non-revoked) entries naming this host, so a deliberate re-pin replaces the old key.
    public mutating func remove(_ lookupName: String) {
        lines.removeAll { line in
            if case .entry(let entry) = line, entry.marker == nil, entry.matches(lookupName) { return true }
            return false
        }
    }

    /// Writes the whole file atomically (temp file, fsync, rename), mode 0600, creating the directory 0700.
    public func write(to path: String) throws(SSHError) {
        do {
            try PrivateFiles.ensureDirectory(path.parentPath)
            try PrivateFiles.atomicWrite(Data(text.utf8), to: path)
        } catch {
            throw SSHError(.invalidConfiguration, "could not write \(path): \(error)")
        }
    }

    static func parse(_ raw: String) -> Line {
        let trimmed = raw.trimmingSpaces()
        if trimmed.isEmpty || trimmed.hasPrefix("#") { return .verbatim(raw) }
        var fields = trimmed.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)[...]
        var marker: KnownHostEntry.Marker? = nil
        if let first = fields.first, first.hasPrefix("@") {
            guard let known = KnownHostEntry.Marker(rawValue: first) else { return .verbatim(raw) }
            marker = known
            fields = fields.dropFirst()
        }
        guard fields.count >= 3 else { return .verbatim(raw) }
        let hosts = fields[fields.startIndex], type = fields[fields.startIndex + 1]
        let base64 = fields[fields.startIndex + 2]
        guard let key = HostKey(type: type, base64: base64) else { return .verbatim(raw) }
        let comment = fields.dropFirst(3).joined(separator: " ")
        var entry = KnownHostEntry(marker: marker, hosts: hosts, key: key, comment: comment)
        entry.original = raw
        return .entry(entry)
    }

    static func hashedMatch(_ field: String, _ name: String) -> Bool {
        let parts = field.split(separator: "|", omittingEmptySubsequences: false)
        guard parts.count == 4, let salt = Data(base64Encoded: String(parts[2])),
            let hash = Data(base64Encoded: String(parts[3]))
        else { return false }
        return Digest.hmacSHA1(key: [UInt8](salt), message: Array(name.utf8)) == [UInt8](hash)
    }

    /// OpenSSH pattern matching: `*` any run, `?` one character, case-insensitive (the same matcher ssh_config
    /// import uses).
    static func wildcardMatch(_ pattern: String, _ name: String) -> Bool {
        SSHConfigResolver.glob(pattern.lowercased(), name.lowercased())
    }
}
