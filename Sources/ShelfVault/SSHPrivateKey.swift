// SSHPrivateKey: a user private key the agent can sign with — its algorithm, public blob and comment, and its
// private fields in OpenSSH's own wire encoding, kept in guarded memory. Made from a vault item (an OpenSSH or
// PEM key file) or from an agent ADD_IDENTITY request, and written back as an unencrypted OpenSSH key file for
// the vault. The private fields never leave this module; callers get signatures and public data only.
import CSodium
import FoundationEssentials
import ShelfCore

/// Why a key could not be used or accepted; the text names the key and the reason, never a secret.
public struct KeyProblem: Error, Sendable, CustomStringConvertible {
    public var message: String
    /// The key is fine; the passphrase given does not open it.
    public var wrongPassphrase: Bool
    public init(_ message: String, wrongPassphrase: Bool = false) {
        self.message = message
        self.wrongPassphrase = wrongPassphrase
    }
    public var description: String { message }
}

public enum SSHKeyAlgorithm: String, Sendable, CaseIterable {
    case ed25519 = "ssh-ed25519"
    case ecdsaP256 = "ecdsa-sha2-nistp256"
    case ecdsaP384 = "ecdsa-sha2-nistp384"
    case ecdsaP521 = "ecdsa-sha2-nistp521"
    case rsa = "ssh-rsa"

    /// The curve name inside an ECDSA key (`nistp256`), and OpenSSL's name for the same group.
    var curve: (ssh: String, openSSL: String, hash: LibCrypto.Hash)? {
        switch self {
        case .ecdsaP256: ("nistp256", "prime256v1", .sha256)
        case .ecdsaP384: ("nistp384", "secp384r1", .sha384)
        case .ecdsaP521: ("nistp521", "secp521r1", .sha512)
        case .ed25519, .rsa: nil
        }
    }

    public var keyType: KeyType {
        switch self {
        case .ed25519: .ed25519
        case .ecdsaP256, .ecdsaP384, .ecdsaP521: .ecdsa
        case .rsa: .rsa
        }
    }

    /// What `ssh-add -l` shows in brackets.
    public var label: String {
        switch self {
        case .ed25519: "ED25519"
        case .ecdsaP256, .ecdsaP384, .ecdsaP521: "ECDSA"
        case .rsa: "RSA"
        }
    }
}

public final class SSHPrivateKey: @unchecked Sendable {
    public let algorithm: SSHKeyAlgorithm
    public let publicBlob: [UInt8]
    public let comment: String
    public let bits: Int
    /// The type-specific private fields exactly as OpenSSH encodes them after the type name.
    let fields: SecretBytes

    /// RSA moduli OpenSSH accepts (SSH_RSA_MINIMUM_MODULUS_SIZE up to its maximum).
    public static let rsaBits = 1024...16384

    private init(algorithm: SSHKeyAlgorithm, publicBlob: [UInt8], comment: String, bits: Int, fields: SecretBytes) {
        self.algorithm = algorithm
        self.publicBlob = publicBlob
        self.comment = comment
        self.bits = bits
        self.fields = fields
    }

    public var fingerprint: String { SSHPublicKey.fingerprint(publicBlob) }

    /// `type base64 comment`, the line for authorized_keys.
    public var publicLine: String {
        SSHPublicKey.line(publicBlob, comment: comment)
    }

    // MARK: making keys

    /// A key sent by `ssh-add`: the fields are read in place from the request (guarded memory) and checked in
    /// full — lengths, the curve, points on it, primes, and that public and private halves belong together.
    public static func fromAgent(
        keyType: String, fields: UnsafeRawBufferPointer, comment: String
    )
        -> Result<SSHPrivateKey, KeyProblem>
    {
        guard let algorithm = SSHKeyAlgorithm(rawValue: keyType) else {
            return .failure(KeyProblem("'\(keyType)' keys are not supported (ed25519, ECDSA and RSA are)"))
        }
        return make(algorithm, fields: SecretBytes(copying: fields), comment: comment, checkFully: true)
    }

    /// A key file as the vault holds it: OpenSSH format (unencrypted, or encrypted with `passphrase`), or PEM
    /// (RSA, EC or PKCS#8, encrypted or not) read by libcrypto.
    public static func fromKeyFile(_ file: SecretBytes, passphrase: SecretBytes?) -> Result<SSHPrivateKey, KeyProblem> {
        guard let inspection = OpenSSHKey.inspect(file) else {
            return .failure(KeyProblem("the stored key is neither an OpenSSH nor a PEM private key"))
        }
        switch inspection.format {
        case .openssh: return fromOpenSSH(file, passphrase: passphrase)
        case .pem: return fromPEM(file, passphrase: passphrase)
        }
    }

    private static func fromOpenSSH(_ file: SecretBytes, passphrase: SecretBytes?) -> Result<SSHPrivateKey, KeyProblem>
    {
        guard let binary = OpenSSHKey.decodeArmour(file) else {
            return .failure(KeyProblem("the stored OpenSSH key's armour or base64 is damaged"))
        }
        return binary.withUnsafeBytes { bytes -> Result<SSHPrivateKey, KeyProblem> in
            var reader = SSHWireReader(bytes)
            guard reader.take(15).map(Array.init) == Array("openssh-key-v1".utf8) + [0],
                let cipher = reader.text(limit: AgentLimits.name), let kdf = reader.text(limit: AgentLimits.name),
                let kdfOptions = reader.string(limit: AgentLimits.keyField), reader.uint32() == 1,
                reader.string(limit: AgentLimits.keyBlob) != nil,
                let section = reader.string(limit: AgentLimits.message)
            else { return .failure(KeyProblem("the stored OpenSSH key is malformed")) }
            if cipher == "none" {
                return privateSection(section)
            }
            let trailing = reader.take(reader.remaining) ?? UnsafeRawBufferPointer(start: nil, count: 0)
            return OpenSSHKeyDecryption.open(
                section, trailing: trailing, cipher: cipher, kdf: kdf, kdfOptions: kdfOptions,
                passphrase: passphrase
            )
            .flatMap { plain in plain.withUnsafeBytes { privateSection($0) } }
        }
    }

    /// checkint ×2, type, fields, comment, padding 1 2 3… — the same layout encrypted or not.
    private static func privateSection(_ section: UnsafeRawBufferPointer) -> Result<SSHPrivateKey, KeyProblem> {
        var reader = SSHWireReader(section)
        guard let check1 = reader.uint32(), let check2 = reader.uint32() else {
            return .failure(KeyProblem("the stored OpenSSH key is malformed"))
        }
        guard check1 == check2 else {
            return .failure(KeyProblem("wrong passphrase for the key (its check bytes differ)", wrongPassphrase: true))
        }
        guard let type = reader.text(limit: AgentLimits.name) else {
            return .failure(KeyProblem("the stored OpenSSH key is malformed"))
        }
        guard let algorithm = SSHKeyAlgorithm(rawValue: type),
            let count = AgentProtocol.privateFieldCount(keyType: type)
        else {
            return .failure(KeyProblem("'\(type)' keys are not supported (ed25519, ECDSA and RSA are)"))
        }
        let start = reader.offset
        for _ in 0..<count {
            guard reader.string(limit: AgentLimits.keyField) != nil else {
                return .failure(KeyProblem("the stored OpenSSH key is malformed"))
            }
        }
        let fields = SecretBytes(copying: UnsafeRawBufferPointer(rebasing: section[start..<reader.offset]))
        guard let comment = reader.text(limit: AgentLimits.comment) else {
            return .failure(KeyProblem("the stored OpenSSH key is malformed"))
        }
        return make(algorithm, fields: fields, comment: comment, checkFully: false)
    }

    private static func fromPEM(_ file: SecretBytes, passphrase: SecretBytes?) -> Result<SSHPrivateKey, KeyProblem> {
        let key: LibCrypto.Key
        switch LibCrypto.readPEM(file, passphrase: passphrase) {
        case .success(let opened): key = opened
        case .failure(var problem):
            // libcrypto does not tell a wrong passphrase from a damaged file; with a passphrase given, say the former.
            problem.wrongPassphrase = passphrase != nil && OpenSSHKey.inspect(file)?.encrypted == true
            return .failure(problem)
        }
        switch key.baseID {
        case LibCrypto.ed25519ID:
            guard let seed = LibCrypto.rawPrivateKey(key) else {
                return .failure(KeyProblem("the PEM ed25519 key is unreadable"))
            }
            let (publicKey, secretKey) = Ed25519.expand(seed)
            let fields = SecretBytes.joined([
                SecretBytes(SSHWire.string(publicKey)), SecretBytes(SSHWire.uint32(64)), secretKey,
            ])
            return make(.ed25519, fields: fields, comment: "", checkFully: false)
        case LibCrypto.ecID:
            guard let group = LibCrypto.textParameter(key, "group"),
                let algorithm = SSHKeyAlgorithm.allCases.first(where: { $0.curve?.openSSL == group }),
                let point = LibCrypto.octetParameter(key, "pub"), let scalar = LibCrypto.numberParameter(key, "priv")
            else { return .failure(KeyProblem("the PEM EC key is on a curve SSH does not use, or unreadable")) }
            let fields = SecretBytes.joined([
                SecretBytes(SSHWire.string(algorithm.curve!.ssh) + SSHWire.string(point)),
                mpint(scalar),
            ])
            return make(algorithm, fields: fields, comment: "", checkFully: false)
        case LibCrypto.rsaID:
            let names = ["n", "e", "d", "rsa-coefficient1", "rsa-factor1", "rsa-factor2"]
            let numbers = names.compactMap { LibCrypto.numberParameter(key, $0) }
            guard numbers.count == names.count else {
                return .failure(KeyProblem("the PEM RSA key is missing its primes"))
            }
            return make(.rsa, fields: SecretBytes.joined(numbers.map(mpint)), comment: "", checkFully: false)
        default:
            return .failure(KeyProblem("the PEM key is of a type SSH agents do not serve (DSA?)"))
        }
    }

    /// `mpint` framing of a secret magnitude, in guarded memory.
    static func mpint(_ magnitude: SecretBytes) -> SecretBytes {
        magnitude.withUnsafeBytes { bytes -> SecretBytes in
            let start = bytes.firstIndex { $0 != 0 } ?? bytes.count
            let trimmed = UnsafeRawBufferPointer(rebasing: bytes[start...])
            let pad = (trimmed.first ?? 0) & 0x80 != 0
            return SecretBytes.joined([
                SecretBytes(SSHWire.uint32(UInt32(trimmed.count + (pad ? 1 : 0))) + (pad ? [0] : [])),
                SecretBytes(copying: trimmed),
            ])
        }
    }

    /// Checks the fields' shape (always) and their mathematics (`checkFully`, for keys from outside), and derives
    /// the public blob from them.
    private static func make(
        _ algorithm: SSHKeyAlgorithm, fields: SecretBytes, comment: String, checkFully: Bool
    )
        -> Result<SSHPrivateKey, KeyProblem>
    {
        let shape: Result<(blob: [UInt8], bits: Int), KeyProblem> = fields.withUnsafeBytes { bytes in
            var reader = SSHWireReader(bytes)
            switch algorithm {
            case .ed25519:
                guard let publicKey = reader.string(limit: 32), publicKey.count == 32,
                    let secretKey = reader.string(limit: 64), secretKey.count == 64, reader.isAtEnd,
                    secretKey[32...].elementsEqual(publicKey)
                else { return .failure(KeyProblem("the ed25519 key is malformed")) }
                if checkFully {
                    let derived = Ed25519.expand(
                        SecretBytes(copying: UnsafeRawBufferPointer(rebasing: secretKey[..<32]))
                    ).publicKey
                    guard derived.elementsEqual(publicKey) else {
                        return .failure(KeyProblem("the ed25519 key's public half does not belong to its private half"))
                    }
                }
                return .success((SSHWire.string(algorithm.rawValue) + SSHWire.string(Array(publicKey)), 256))
            case .ecdsaP256, .ecdsaP384, .ecdsaP521:
                let curve = algorithm.curve!
                guard let name = reader.text(limit: AgentLimits.name), name == curve.ssh,
                    let point = reader.string(limit: AgentLimits.keyField),
                    let scalar = reader.positiveMPInt(limit: AgentLimits.keyField), reader.isAtEnd
                else { return .failure(KeyProblem("the \(algorithm.rawValue) key is malformed")) }
                if checkFully {
                    switch LibCrypto.ecKey(group: curve.openSSL, point: point, scalar: scalar) {
                    case .failure(let problem): return .failure(problem)
                    case .success(let key) where !LibCrypto.check(key):
                        return .failure(
                            KeyProblem("the \(algorithm.rawValue) key failed libcrypto's consistency check"))
                    case .success: break
                    }
                }
                let blob = SSHWire.string(algorithm.rawValue) + SSHWire.string(curve.ssh) + SSHWire.string(Array(point))
                let bits = ["nistp256": 256, "nistp384": 384, "nistp521": 521][curve.ssh] ?? 0
                return .success((blob, bits))
            case .rsa:
                var numbers: [UnsafeRawBufferPointer] = []
                for _ in 0..<6 {
                    guard let number = reader.positiveMPInt(limit: AgentLimits.keyField) else {
                        return .failure(KeyProblem("the RSA key is malformed"))
                    }
                    numbers.append(number)
                }
                guard reader.isAtEnd else { return .failure(KeyProblem("the RSA key is malformed")) }
                let (n, e) = (numbers[0], numbers[1])
                let bits = n.first.map { n.count * 8 - $0.leadingZeroBitCount } ?? 0
                guard rsaBits.contains(bits) else {
                    return .failure(
                        KeyProblem(
                            "an RSA key of \(bits) bits is refused (\(rsaBits.lowerBound)-\(rsaBits.upperBound) bits are accepted)"
                        ))
                }
                if checkFully {
                    switch LibCrypto.rsaKey(n: n, e: e, d: numbers[2], iqmp: numbers[3], p: numbers[4], q: numbers[5]) {
                    case .failure(let problem): return .failure(problem)
                    case .success(let key) where !LibCrypto.check(key):
                        return .failure(KeyProblem("the RSA key failed libcrypto's consistency check"))
                    case .success: break
                    }
                }
                return .success(
                    (SSHWire.string(algorithm.rawValue) + SSHWire.mpint(Array(e)) + SSHWire.mpint(Array(n)), bits))
            }
        }
        return shape.map {
            SSHPrivateKey(algorithm: algorithm, publicBlob: $0.blob, comment: comment, bits: $0.bits, fields: fields)
        }
    }

    /// The same key under another comment (an identity's name, when the file carried none).
    public func withComment(_ comment: String) -> SSHPrivateKey {
        SSHPrivateKey(algorithm: algorithm, publicBlob: publicBlob, comment: comment, bits: bits, fields: fields)
    }

    // MARK: writing

    /// An unencrypted OpenSSH private key file (what `ssh-keygen -N ''` writes), in guarded memory.
    public func openSSHFile() -> SecretBytes {
        OpenSSHKey.encodeFile(publicBlob: publicBlob, keyType: algorithm.rawValue, fields: fields, comment: comment)
    }

    // MARK: signing

    public enum SignFailure: Error, Sendable, Equatable {
        /// A plain `ssh-rsa` (SHA-1) signature was asked for; this agent makes only rsa-sha2-256/512.
        case rsaSHA1Refused
        case failed(String)
    }

    /// Signs `data` as the agent protocol asks: the signature blob (`string algorithm, string signature`) and the
    /// algorithm name. RSA honours SSH_AGENT_RSA_SHA2_256/512 (256 first, as OpenSSH's agent) and refuses SHA-1.
    public func sign(_ data: [UInt8], flags: UInt32) -> Result<(algorithm: String, blob: [UInt8]), SignFailure> {
        fields.withUnsafeBytes { bytes -> Result<(algorithm: String, blob: [UInt8]), SignFailure> in
            var reader = SSHWireReader(bytes)
            switch algorithm {
            case .ed25519:
                guard reader.string(limit: 32) != nil, let secretKey = reader.string(limit: 64), secretKey.count == 64
                else {
                    return .failure(.failed("the ed25519 key is malformed"))
                }
                let signature = Ed25519.sign(data, secretKey: secretKey)
                return .success((algorithm.rawValue, SSHWire.string(algorithm.rawValue) + SSHWire.string(signature)))
            case .ecdsaP256, .ecdsaP384, .ecdsaP521:
                let curve = algorithm.curve!
                guard reader.string(limit: AgentLimits.name) != nil,
                    let point = reader.string(limit: AgentLimits.keyField),
                    let scalar = reader.positiveMPInt(limit: AgentLimits.keyField)
                else { return .failure(.failed("the \(algorithm.rawValue) key is malformed")) }
                let key: LibCrypto.Key
                switch LibCrypto.ecKey(group: curve.openSSL, point: point, scalar: scalar) {
                case .success(let made): key = made
                case .failure(let problem): return .failure(.failed(problem.message))
                }
                guard let der = LibCrypto.sign(key, hash: curve.hash, data: data), let parts = LibCrypto.ecdsaParts(der)
                else {
                    return .failure(.failed("libcrypto could not sign: \(LibCrypto.drainErrors())"))
                }
                let inner = SSHWire.mpint(parts.r) + SSHWire.mpint(parts.s)
                return .success((algorithm.rawValue, SSHWire.string(algorithm.rawValue) + SSHWire.string(inner)))
            case .rsa:
                let name: String
                let hash: LibCrypto.Hash
                if flags & AgentMessage.rsaSHA2_256 != 0 {
                    (name, hash) = ("rsa-sha2-256", .sha256)
                } else if flags & AgentMessage.rsaSHA2_512 != 0 {
                    (name, hash) = ("rsa-sha2-512", .sha512)
                } else {
                    return .failure(.rsaSHA1Refused)
                }
                var numbers: [UnsafeRawBufferPointer] = []
                for _ in 0..<6 {
                    guard let number = reader.positiveMPInt(limit: AgentLimits.keyField) else {
                        return .failure(.failed("the RSA key is malformed"))
                    }
                    numbers.append(number)
                }
                let key: LibCrypto.Key
                switch LibCrypto.rsaKey(
                    n: numbers[0], e: numbers[1], d: numbers[2], iqmp: numbers[3], p: numbers[4], q: numbers[5])
                {
                case .success(let made): key = made
                case .failure(let problem): return .failure(.failed(problem.message))
                }
                guard let signature = LibCrypto.sign(key, hash: hash, data: data) else {
                    return .failure(.failed("libcrypto could not sign: \(LibCrypto.drainErrors())"))
                }
                return .success((name, SSHWire.string(name) + SSHWire.string(signature)))
            }
        }
    }
}

/// Public key lines and fingerprints, computed from a blob (no secret involved).
public enum SSHPublicKey {
    /// `SHA256:` and the unpadded base64 of the blob's SHA-256, as ssh-keygen -l prints it.
    public static func fingerprint(_ blob: [UInt8]) -> String {
        "SHA256:" + Data(Digest.sha256(blob)).base64EncodedString().replacing("=", with: "")
    }

    public static func line(_ blob: [UInt8], comment: String) -> String {
        let type = blob.withUnsafeBytes { bytes -> String in
            var reader = SSHWireReader(bytes)
            return reader.text(limit: AgentLimits.name) ?? "unknown"
        }
        return type + " " + Data(blob).base64EncodedString() + (comment.isEmpty ? "" : " " + comment)
    }

    /// The type name a public blob starts with (`ssh-ed25519`).
    public static func typeName(of blob: [UInt8]) -> String? {
        blob.withUnsafeBytes { bytes -> String? in
            var reader = SSHWireReader(bytes)
            return reader.text(limit: AgentLimits.name)
        }
    }

    /// The algorithm a public blob names, when it is one this agent signs with.
    public static func algorithm(of blob: [UInt8]) -> SSHKeyAlgorithm? {
        blob.withUnsafeBytes { bytes -> SSHKeyAlgorithm? in
            var reader = SSHWireReader(bytes)
            return reader.text(limit: AgentLimits.name).flatMap(SSHKeyAlgorithm.init(rawValue:))
        }
    }

    /// The blob inside a public key line (`type base64 [comment]`), when the line is well formed and its type
    /// matches the blob's own.
    public static func blob(fromLine line: String) -> [UInt8]? {
        let parts = line.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count >= 2, let data = Data(base64Encoded: String(parts[1])) else { return nil }
        let blob = [UInt8](data)
        let type = blob.withUnsafeBytes { bytes -> String? in
            var reader = SSHWireReader(bytes)
            return reader.text(limit: AgentLimits.name)
        }
        return type == String(parts[0]) ? blob : nil
    }
}

/// Ed25519 through libsodium: OpenSSH's 64-byte private key is libsodium's (seed followed by public key).
enum Ed25519 {
    static func expand(_ seed: SecretBytes) -> (publicKey: [UInt8], secretKey: SecretBytes) {
        var publicKey = [UInt8](repeating: 0, count: Int(crypto_sign_PUBLICKEYBYTES))
        let secretKey = SecretBytes(count: Int(crypto_sign_SECRETKEYBYTES))
        secretKey.withBytes { secret, _ in
            seed.withBytes { seedBytes, _ in _ = crypto_sign_seed_keypair(&publicKey, secret, seedBytes) }
        }
        return (publicKey, secretKey)
    }

    static func sign(_ data: [UInt8], secretKey: UnsafeRawBufferPointer) -> [UInt8] {
        var signature = [UInt8](repeating: 0, count: Int(crypto_sign_BYTES))
        _ = crypto_sign_detached(
            &signature, nil, data, UInt64(data.count),
            secretKey.baseAddress!.assumingMemoryBound(to: UInt8.self))
        return signature
    }
}
