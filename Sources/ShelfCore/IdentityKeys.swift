// IdentityKeys: one key, one identity — which identity already holds a public key (compared by the key itself, never
// by its comment), the stricter of two identities' agent options, and the agent's one entry per key.
import FoundationEssentials

public enum IdentityKeys {
    /// The key blob of a public key line (`type base64 [comment]`); nil for an empty or malformed line.
    public static func blob(of line: String) -> [UInt8]? {
        let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard parts.count >= 2, let data = Data(base64Encoded: String(parts[1])), !data.isEmpty else { return nil }
        return [UInt8](data)
    }

    /// `SHA256:…` as ssh-keygen -l prints it, or nil for a line that holds no key.
    public static func fingerprint(of line: String) -> String? {
        blob(of: line).map {
            "SHA256:" + Data(Digest.sha256($0)).base64EncodedString().replacing("=", with: "")
        }
    }

    /// The identity, other than `id`, that holds the key of `line`: one whose private key is in the vault first,
    /// then the first in the order given. Nil when none does (or the line holds no key).
    public static func holder(of line: String, among identities: [Identity], except id: UUID? = nil) -> Identity? {
        guard let key = blob(of: line) else { return nil }
        let holding = identities.filter { $0.id != id && blob(of: $0.publicKey) == key }
        return holding.first { $0.privateKeyRef != nil } ?? holding.first
    }

    /// The stricter agent options of two identities: asking before each use when either asks, and the shorter
    /// lifetime when either has one (0 is no limit, the least strict).
    public static func stricter(_ a: Identity, _ b: Identity) -> (confirmEachUse: Bool, agentLifetime: Int) {
        let lifetimes = [a.agentLifetime, b.agentLifetime].filter { $0 > 0 }
        return (a.confirmEachUse || b.confirmEachUse, lifetimes.min() ?? 0)
    }

    /// One identity per key, in the order given: the first that holds each key, carrying the stricter options of
    /// every identity holding it (two devices that imported one key under two names bring two records by sync; the
    /// agent must not serve the key under the laxer one). Identities without a readable key pass through.
    public static func onePerKey(_ identities: [Identity]) -> [Identity] {
        var result: [Identity] = []
        var index: [[UInt8]: Int] = [:]
        for identity in identities {
            guard let key = blob(of: identity.publicKey) else {
                result.append(identity)
                continue
            }
            if let at = index[key] {
                (result[at].confirmEachUse, result[at].agentLifetime) = stricter(result[at], identity)
            } else {
                index[key] = result.count
                result.append(identity)
            }
        }
        return result
    }
}
