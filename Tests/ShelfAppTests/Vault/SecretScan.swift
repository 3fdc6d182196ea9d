// SecretScan: looks for secret bytes in every file under a folder — raw, in hex (both cases), as UTF-16 and in
// base64 at each alignment — for the tests that prove a credential never left the vault.
import Foundation

enum SecretScan {
    static func forms(_ secret: [UInt8]) -> [String: [UInt8]] {
        let bytes = Data(secret)
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        var result: [String: [UInt8]] = [
            "raw": Array(bytes), "hex": Array(hex.utf8), "HEX": Array(hex.uppercased().utf8),
            "utf16": Array(String(decoding: secret, as: UTF8.self).data(using: .utf16LittleEndian) ?? Data()),
        ]
        // base64 at each of the three alignments a secret can have inside a longer base64 text.
        for shift in 0..<3 {
            let padded = Data(repeating: 0x41, count: shift) + bytes
            let encoded = padded.base64EncodedString()
            let skip = (shift * 4 + 2) / 3
            let core = String(encoded.dropFirst(skip).prefix(max(0, (bytes.count * 4) / 3 - 4)))
            result["base64+\(shift)"] = Array(core.utf8)
        }
        return result
    }

    /// Every (name, form, file) where a secret was found.
    static func hits(_ root: String, for secrets: [String: [UInt8]]) -> [String] {
        var found: [String] = []
        for path in FileManager.default.subpaths(atPath: root) ?? [] {
            let full = root + "/" + path
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue,
                let data = FileManager.default.contents(atPath: full)
            else { continue }
            for (name, secret) in secrets {
                for (form, needle) in forms(secret) where needle.count >= 8 && data.range(of: Data(needle)) != nil {
                    found.append("\(name) found \(form) in \(path)")
                }
            }
        }
        return found
    }
}
