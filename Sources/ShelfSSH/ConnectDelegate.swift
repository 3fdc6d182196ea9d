// ConnectDelegate: the decisions and prompts a connection needs from its caller — the TUI draws dialogs, the CLI
// reads the terminal. Policy lives here, so ShelfSSH never decides on its own to trust a key or ask a question.
import FoundationEssentials

/// A host key that needs the user's decision: unknown, or known only under other key types.
public struct HostKeyQuestion: Sendable {
    public enum Reason: Sendable, Equatable {
        case unknown
        case otherType(knownTypes: [String], source: HostKeySource)
    }
    public var hopName: String
    /// `host` or `[host]:port`, as known_hosts names it.
    public var lookupName: String
    public var key: HostKey
    public var reason: Reason
    public var fingerprint: String { key.fingerprint }

    public init(hopName: String, lookupName: String, key: HostKey, reason: Reason) {
        self.hopName = hopName
        self.lookupName = lookupName
        self.key = key
        self.reason = reason
    }
}

public enum HostKeyDecision: Sendable {
    case refuse
    /// Trust for this connection only.
    case acceptOnce
    /// Trust, pin on the host record and add to sshelf's known_hosts.
    case acceptAndRemember
}

/// A password to type for a verified hop. Made only by the authenticator, from the hop's VerifiedSession: the
/// user is never asked for a credential before that hop's host key was checked.
public struct PasswordRequest: Sendable {
    public let hopName: String
    public let user: String
    public let destination: String
    /// 1 for the first ask; > 1 after the server rejected the previous answer.
    public let attempt: Int
    /// Offer "remember this password" (the credential source can store it).
    public let canRemember: Bool
    /// Why the stored password was not used (vault locked or unavailable), for the prompt to say.
    public let note: String?

    init(_ verified: VerifiedSession, attempt: Int, canRemember: Bool, note: String?) {
        hopName = verified.hop.name
        user = verified.hop.user
        destination = verified.hop.destination
        self.attempt = attempt
        self.canRemember = canRemember
        self.note = note
    }
}

/// The passphrase of an encrypted private key, for a verified hop (made only by the authenticator).
public struct KeyPassphraseRequest: Sendable {
    public let hopName: String
    /// The identity whose key it is.
    public let keyDescription: String
    /// Whether "remember this passphrase in the vault" may be offered (a file key of a known identity).
    public let canRemember: Bool

    init(_ verified: VerifiedSession, keyDescription: String, canRemember: Bool = false) {
        hopName = verified.hop.name
        self.keyDescription = keyDescription
        self.canRemember = canRemember
    }
}

public struct PasswordAnswer: Sendable {
    public var password: SecretBytes
    public var remember: Bool
    public init(password: SecretBytes, remember: Bool = false) {
        self.password = password
        self.remember = remember
    }
}

/// One keyboard-interactive round of a verified hop (made only by the authenticator). All text came from the
/// server and has had control characters removed.
public struct KeyboardChallenge: Sendable {
    public let hopName: String
    public let name: String
    public let instruction: String
    public let prompts: [KeyboardPrompt]

    init(_ verified: VerifiedSession, name: String, instruction: String, prompts: [KeyboardPrompt]) {
        hopName = verified.hop.name
        self.name = name
        self.instruction = instruction
        self.prompts = prompts
    }
}

/// Progress a caller may show or record. `hostKeyVerified` always precedes any credential lookup of that hop.
public enum ConnectEvent: Sendable, Equatable {
    case connecting(hop: String, address: String)
    case hostKeyVerified(hop: String, fingerprint: String, source: String)
    case authenticating(hop: String, method: String)
    case authenticated(hop: String, method: String)
    case jumping(from: String, to: String)
    /// The server's text before login (SSH_MSG_USERAUTH_BANNER, sshd's `Banner`), control characters removed; only
    /// libssh2 1.11 hands it over (LibSSH2.Features.userauthBanner).
    case banner(hop: String, text: String)
}

public protocol ConnectDelegate: AnyObject {
    func decide(_ question: HostKeyQuestion) -> HostKeyDecision
    /// nil cancels (the user pressed Escape, or no terminal to ask on).
    func askPassword(_ request: PasswordRequest) -> PasswordAnswer?
    /// Passphrase for an encrypted private key file; nil cancels.
    func askKeyPassphrase(_ request: KeyPassphraseRequest) -> SecretBytes?
    /// The same, with whether to remember it in the vault (offered when `request.canRemember`); nil cancels.
    func askKeyPassphraseToKeep(_ request: KeyPassphraseRequest) -> PasswordAnswer?
    /// One answer per prompt, in order; nil cancels.
    func answer(_ challenge: KeyboardChallenge) -> [SecretBytes]?
    func note(_ event: ConnectEvent)
}

extension ConnectDelegate {
    public func askKeyPassphrase(_ request: KeyPassphraseRequest) -> SecretBytes? { nil }
    /// The key passphrase and whether to remember it (a delegate that can offer "remember" implements this).
    public func askKeyPassphraseToKeep(_ request: KeyPassphraseRequest) -> PasswordAnswer? {
        askKeyPassphrase(request).map { PasswordAnswer(password: $0, remember: false) }
    }
    public func note(_ event: ConnectEvent) {}
}

/// Server-supplied text is untrusted: drop control characters and escape sequences before anyone draws it.
public enum UntrustedText {
    public static func clean(_ text: String) -> String {
        var out = ""
        var scalars = text.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            if scalar == "\u{1B}" {
                // CSI: ESC [ params final(0x40-0x7E); other ESC x pairs: drop the next character too.
                guard let next = scalars.next() else { break }
                if next == "[" {
                    while let c = scalars.next(), !(0x40...0x7E).contains(c.value) {}
                } else if next == "]" {
                    while let c = scalars.next(), c != "\u{07}", c != "\u{1B}" {}
                }
                continue
            }
            if scalar == "\n" || scalar == "\t" {
                out.unicodeScalars.append(scalar)
                continue
            }
            if scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value) { continue }
            if scalar.properties.generalCategory == .format && scalar.value != 0x200D { continue }
            out.unicodeScalars.append(scalar)
        }
        return out
    }
}
