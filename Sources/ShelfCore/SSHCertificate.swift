// SSHCertificate: an OpenSSH certificate (PROTOCOL.certkeys) read from its wire blob or built to be signed — the
// certified key, serial, type, key id, principals, validity window, options, and the CA's key and signature — and
// the checks a host certificate must pass that need no cryptography (the signature is checked by the caller).
public struct SSHCertificate: Sendable, Equatable {
    public static let suffix = "-cert-v01@openssh.com"

    public enum Kind: UInt32, Sendable { case user = 1, host = 2 }

    /// A critical option or an extension: its name and its data (the inner string, as the blob holds it).
    public struct Option: Sendable, Equatable {
        public var name: String
        public var data: [UInt8]
        public init(name: String, data: [UInt8] = []) {
            self.name = name
            self.data = data
        }
    }

    /// The certified key's own type (`ssh-ed25519`), without the certificate suffix.
    public var keyType: String
    public var nonce: [UInt8]
    /// The certified key's fields as they follow its type name in its public blob.
    public var keyFields: [UInt8]
    public var serial: UInt64
    public var kind: Kind
    public var keyID: String
    public var principals: [String]
    /// Seconds since the epoch: valid from `validAfter` (inclusive) until `validBefore` (exclusive).
    public var validAfter: UInt64
    public var validBefore: UInt64
    public var criticalOptions: [Option]
    public var extensions: [Option]
    /// The CA's public key blob.
    public var signatureKey: [UInt8]
    /// The CA's signature (`string algorithm, string signature`) over `signedBytes`; empty before signing.
    public var signature: [UInt8]

    public init(
        keyType: String, nonce: [UInt8], keyFields: [UInt8], serial: UInt64, kind: Kind, keyID: String,
        principals: [String], validAfter: UInt64, validBefore: UInt64, criticalOptions: [Option] = [],
        extensions: [Option] = [], signatureKey: [UInt8], signature: [UInt8] = []
    ) {
        self.keyType = keyType
        self.nonce = nonce
        self.keyFields = keyFields
        self.serial = serial
        self.kind = kind
        self.keyID = keyID
        self.principals = principals
        self.validAfter = validAfter
        self.validBefore = validBefore
        self.criticalOptions = criticalOptions
        self.extensions = extensions
        self.signatureKey = signatureKey
        self.signature = signature
    }

    /// The certificate's own type name, e.g. `ssh-ed25519-cert-v01@openssh.com`.
    public var type: String { keyType + Self.suffix }

    /// The public blob of the key this certificate certifies.
    public var publicKeyBlob: [UInt8] { SSHWire.string(keyType) + keyFields }

    /// Everything the CA signs: the blob up to (not including) the signature.
    public var signedBytes: [UInt8] {
        var out = SSHWire.string(type) + SSHWire.string(nonce) + keyFields
        out += Self.uint64(serial) + SSHWire.uint32(kind.rawValue) + SSHWire.string(keyID)
        out += SSHWire.string(principals.flatMap { SSHWire.string($0) })
        out += Self.uint64(validAfter) + Self.uint64(validBefore)
        out += SSHWire.string(Self.pack(criticalOptions)) + SSHWire.string(Self.pack(extensions))
        out += SSHWire.string([UInt8]())  // reserved
        out += SSHWire.string(signatureKey)
        return out
    }

    /// The whole certificate blob (what a `-cert.pub` file holds base64-encoded).
    public var blob: [UInt8] { signedBytes + SSHWire.string(signature) }

    /// Reads a certificate blob; nil when it is not one of the key types sshelf knows, or is malformed.
    public init?(blob: [UInt8]) {
        let parsed: SSHCertificate? = blob.withUnsafeBytes { bytes in
            var reader = SSHWireReader(bytes)
            guard let type = reader.text(limit: 128), type.hasSuffix(Self.suffix),
                let nonce = reader.bytesString(limit: 1024)
            else { return nil }
            let keyType = String(type.dropLast(Self.suffix.count))
            let fieldCount: Int
            switch keyType {
            case "ssh-ed25519": fieldCount = 1
            case "ssh-rsa", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521": fieldCount = 2
            default: return nil
            }
            let fieldsStart = reader.offset
            for _ in 0..<fieldCount { guard reader.string(limit: 16_384) != nil else { return nil } }
            let keyFields = Array(bytes[fieldsStart..<reader.offset])
            guard let serial = Self.uint64(&reader), let kindValue = reader.uint32(),
                let kind = Kind(rawValue: kindValue), let keyID = reader.text(limit: 4096),
                let principalBytes = reader.bytesString(limit: 65_536),
                let principals = Self.strings(principalBytes),
                let validAfter = Self.uint64(&reader), let validBefore = Self.uint64(&reader),
                let criticalBytes = reader.bytesString(limit: 65_536), let critical = Self.options(criticalBytes),
                let extensionBytes = reader.bytesString(limit: 65_536),
                let extensions = Self.options(extensionBytes),
                reader.string(limit: 65_536) != nil,
                let signatureKey = reader.bytesString(limit: 16_384),
                let signature = reader.bytesString(limit: 16_384), reader.isAtEnd
            else { return nil }
            return SSHCertificate(
                keyType: keyType, nonce: nonce, keyFields: keyFields, serial: serial, kind: kind, keyID: keyID,
                principals: principals, validAfter: validAfter, validBefore: validBefore, criticalOptions: critical,
                extensions: extensions, signatureKey: signatureKey, signature: signature)
        }
        guard let parsed else { return nil }
        self = parsed
    }

    /// Why this certificate cannot vouch for the host `name` at `now` (seconds since the epoch), or nil when it
    /// can — all but the signature, which the caller checks with the CA's key. Stricter than OpenSSH in one place:
    /// a certificate with no principals is refused (it would vouch for any name the CA's pattern covers).
    public func hostProblem(name: String, now: UInt64) -> String? {
        if kind != .host { return "it is a user certificate, not a host certificate" }
        if principals.isEmpty { return "it names no host (no principals)" }
        if !principals.contains(where: { $0.lowercased() == name.lowercased() }) {
            let listed = principals.prefix(8).map { Self.safe($0) }.joined(separator: ", ")
            return "it is for \(listed), not for \(Self.safe(name))"
        }
        if let problem = timeProblem(now: now) { return problem }
        if let option = criticalOptions.first {
            return "it carries the critical option \(Self.safe(option.name)), which sshelf does not know"
        }
        return nil
    }

    /// Not yet valid or expired at `now`, or nil.
    public func timeProblem(now: UInt64) -> String? {
        if now < validAfter { return "it is not valid before \(Self.timestamp(validAfter))" }
        if now >= validBefore { return "it expired at \(Self.timestamp(validBefore))" }
        return nil
    }

    /// `2026-12-06 09:00:00 UTC`, or `forever` for the largest value.
    public static func timestamp(_ seconds: UInt64) -> String {
        if seconds == UInt64.max { return "forever" }
        let value = Int64(clamping: seconds)
        let days = value / 86_400, second = value % 86_400
        // Howard Hinnant's civil-from-days: the proleptic Gregorian date of a day count since 1970-01-01.
        let z = days + 719_468, era = z / 146_097, dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shifted = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shifted + 2) / 5 + 1
        let month = shifted < 10 ? shifted + 3 : shifted - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ number: Int64) -> String { TextFormat.zeroPadded(number, width: 2) }
        return
            "\(year)-\(two(month))-\(two(day)) \(two(second / 3600)):\(two(second / 60 % 60)):\(two(second % 60)) UTC"
    }

    /// A name from a certificate (hostile bytes) on one line of a message.
    static func safe(_ text: String) -> String {
        HostOutputText.clean(Array(text.utf8)).replacing("\n", with: "^J")
    }

    static func uint64(_ value: UInt64) -> [UInt8] {
        SSHWire.uint32(UInt32(value >> 32)) + SSHWire.uint32(UInt32(value & 0xffff_ffff))
    }

    static func uint64(_ reader: inout SSHWireReader) -> UInt64? {
        guard let high = reader.uint32(), let low = reader.uint32() else { return nil }
        return UInt64(high) << 32 | UInt64(low)
    }

    static func pack(_ options: [Option]) -> [UInt8] {
        options.flatMap { SSHWire.string($0.name) + SSHWire.string($0.data.isEmpty ? [] : SSHWire.string($0.data)) }
    }

    static func strings(_ bytes: [UInt8]) -> [String]? {
        bytes.withUnsafeBytes { raw in
            var reader = SSHWireReader(raw)
            var out: [String] = []
            while !reader.isAtEnd {
                guard let text = reader.text(limit: 4096) else { return nil }
                out.append(text)
            }
            return out
        }
    }

    static func options(_ bytes: [UInt8]) -> [Option]? {
        bytes.withUnsafeBytes { raw in
            var reader = SSHWireReader(raw)
            var out: [Option] = []
            while !reader.isAtEnd {
                guard let name = reader.text(limit: 4096), let outer = reader.bytesString(limit: 65_536) else {
                    return nil
                }
                var data: [UInt8] = []
                if !outer.isEmpty {
                    guard
                        let inner = outer.withUnsafeBytes({ raw -> [UInt8]? in
                            var innerReader = SSHWireReader(raw)
                            guard let value = innerReader.bytesString(limit: 65_536), innerReader.isAtEnd else {
                                return nil
                            }
                            return value
                        })
                    else { return nil }
                    data = inner
                }
                out.append(Option(name: name, data: data))
            }
            return out
        }
    }
}
