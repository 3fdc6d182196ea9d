// Open enums: known cases plus `.other(raw)`, stored as raw strings, so a value written by a newer version
// (or another device) survives a load/save round trip instead of failing or being rewritten.
import FoundationEssentials

public protocol OpenEnum: Hashable, Sendable, Codable, CustomStringConvertible {
    static var knownCases: [Self] { get }
    var rawValue: String { get }
    init(rawValue: String)
}

extension OpenEnum {
    public var description: String { rawValue }
    public var isKnown: Bool { Self.knownCases.contains(self) }

    public init(from decoder: Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// Parses user input case-insensitively; nil when it names no known case (user input must be known).
    public static func parseKnown(_ text: String) -> Self? {
        let wanted = text.lowercased().replacing("-", with: "").replacing("_", with: "")
        return knownCases.first { $0.rawValue.lowercased() == wanted }
    }
}

public enum AuthMethod: OpenEnum {
    case auto, publickey, password, keyboardInteractive, agent
    case other(String)

    public static let knownCases: [AuthMethod] = [.auto, .publickey, .password, .keyboardInteractive, .agent]

    public var rawValue: String {
        switch self {
        case .auto: "auto"
        case .publickey: "publickey"
        case .password: "password"
        case .keyboardInteractive: "keyboardInteractive"
        case .agent: "agent"
        case .other(let raw): raw
        }
    }

    public init(rawValue: String) {
        self = Self.knownCases.first { $0.rawValue == rawValue } ?? .other(rawValue)
    }
}

public enum ForwardKind: OpenEnum {
    case local, remote, dynamic
    case other(String)

    public static let knownCases: [ForwardKind] = [.local, .remote, .dynamic]

    public var rawValue: String {
        switch self {
        case .local: "local"
        case .remote: "remote"
        case .dynamic: "dynamic"
        case .other(let raw): raw
        }
    }

    public init(rawValue: String) {
        self = Self.knownCases.first { $0.rawValue == rawValue } ?? .other(rawValue)
    }
}

public enum KeyType: OpenEnum {
    case ed25519, ecdsa, rsa
    case other(String)

    public static let knownCases: [KeyType] = [.ed25519, .ecdsa, .rsa]

    public var rawValue: String {
        switch self {
        case .ed25519: "ed25519"
        case .ecdsa: "ecdsa"
        case .rsa: "rsa"
        case .other(let raw): raw
        }
    }

    public init(rawValue: String) {
        self = Self.knownCases.first { $0.rawValue == rawValue } ?? .other(rawValue)
    }

    /// The key type named by an OpenSSH public-key algorithm (`ssh-ed25519`, `ecdsa-sha2-nistp256`, `ssh-rsa`).
    public init(openSSHAlgorithm name: String) {
        switch name {
        case "ssh-ed25519", "sk-ssh-ed25519@openssh.com": self = .ed25519
        case _ where name.hasPrefix("ecdsa-sha2-") || name.hasPrefix("sk-ecdsa-sha2-"): self = .ecdsa
        case "ssh-rsa", "rsa-sha2-256", "rsa-sha2-512": self = .rsa
        default: self = .other(name)
        }
    }
}
