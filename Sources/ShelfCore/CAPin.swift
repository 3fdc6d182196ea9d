// CAPin: a certificate authority trusted for host certificates of some host names (`sshelf trust --ca KEY --hosts
// PATTERN`) — the synced form of a `@cert-authority` line, a config record like a host: it travels only inside
// signed, sealed entries, so a CA line the remote writes by itself changes nothing.
import FoundationEssentials

public struct CAPin: Hashable, Sendable, Codable, Identifiable {
    public var id: UUID
    /// The CA's public key: OpenSSH algorithm name and base64 blob, as a known_hosts line holds them.
    public var keyType: String
    public var key: String
    /// known_hosts host patterns, comma-separated (`*.example.org,!old.example.org`): the names the CA vouches for.
    public var hosts: String
    public var updatedAt: Date
    /// Fields written by a newer version, kept verbatim.
    public var extra: [String: JSONValue]

    public init(
        id: UUID = UUID(), keyType: String = "", key: String = "", hosts: String = "", updatedAt: Date = Date(),
        extra: [String: JSONValue] = [:]
    ) {
        self.id = id
        self.keyType = keyType
        self.key = key
        self.hosts = hosts
        self.updatedAt = updatedAt
        self.extra = extra
    }

    static let knownFields: Set<String> = ["id", "keyType", "key", "hosts", "updatedAt"]

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: AnyCodingKey.self)
        id = try c.field("id", UUID())
        keyType = try c.field("keyType", "")
        key = try c.field("key", "")
        hosts = try c.field("hosts", "")
        updatedAt = try c.field("updatedAt", Date(timeIntervalSince1970: 0))
        extra = try c.unknownFields(known: Self.knownFields)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: AnyCodingKey.self)
        try c.put("id", id)
        try c.put("keyType", keyType)
        try c.put("key", key)
        try c.put("hosts", hosts)
        try c.put("updatedAt", updatedAt)
        try c.putUnknown(extra.filter { !Self.knownFields.contains($0.key) })
    }

    /// Why this pin cannot vouch for anything (as sync may bring one), or nil.
    public var unusable: String? { Validation.problems(self).first?.message }
}

extension Validation {
    /// A `--hosts` value: known_hosts host patterns, comma-separated, printable ASCII without spaces, `#` or `|`
    /// (a hashed name is no pattern), none empty or a bare `!`.
    public static func caPinPatternsProblem(_ patterns: String) -> String? {
        let parts = patterns.split(separator: ",", omittingEmptySubsequences: false)
        let fine =
            !parts.isEmpty && patterns.utf8.count <= 1024
            && parts.allSatisfy { part in
                !part.isEmpty && part != "!" && part.allSatisfy { $0 > " " && $0 <= "~" && $0 != "#" && $0 != "|" }
            }
        return fine ? nil : "'\(patterns)' is not a list of host patterns"
    }

    public static func problems(_ pin: CAPin) -> [ValidationError] {
        var found: [ValidationError] = []
        if let problem = caPinPatternsProblem(pin.hosts) {
            found.append(ValidationError(field: "hosts", message: problem))
        }
        let typeFine =
            !pin.keyType.isEmpty && pin.keyType.utf8.count <= 64
            && pin.keyType.allSatisfy { $0 > " " && $0 <= "~" } && !pin.keyType.hasSuffix(SSHCertificate.suffix)
        if !typeFine || Data(base64Encoded: pin.key) == nil || pin.key.utf8.count > 16 * 1024 {
            found.append(ValidationError(field: "key", message: "the CA pin's key is not a public key"))
        }
        return found
    }
}
