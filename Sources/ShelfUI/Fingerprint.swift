// Fingerprint: OpenSSH's `SHA256:…` form of a pinned host key, for display (ShelfCore's plain-Swift SHA-256:
// the pure UI links no crypto library).
import FoundationEssentials
import ShelfCore

public enum Fingerprint {
    /// `SHA256:base64-without-padding` of the key blob, or nil when the stored key is not valid base64.
    public static func of(_ key: PinnedHostKey) -> String? {
        guard let blob = Data(base64Encoded: key.key) else { return nil }
        var text = sha256(Array(blob)).base64EncodedString()
        while text.hasSuffix("=") { text.removeLast() }
        return "SHA256:" + text
    }

    /// SHA-256 of a public key blob (the one implementation, in ShelfCore's `Digest`).
    public static func sha256(_ message: [UInt8]) -> Data { Data(Digest.sha256(message)) }
}
