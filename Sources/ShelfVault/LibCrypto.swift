// LibCrypto: the few OpenSSL libcrypto calls the agent's ECDSA and RSA keys need — building a key from its
// OpenSSH fields, reading a PEM key file, signing with a SHA-2 digest, and splitting an ECDSA signature. Private
// numbers go to OpenSSL straight from guarded memory (as OSSL_PARAM buffers) and every OpenSSL object holding
// them is freed, which clears it, before the call returns.
import COpenSSL
import FoundationEssentials

enum LibCrypto {
    /// An EVP_PKEY, freed (and cleared by OpenSSL) when released.
    final class Key {
        let pointer: OpaquePointer
        init(_ pointer: OpaquePointer) { self.pointer = pointer }
        deinit { EVP_PKEY_free(pointer) }

        /// libcrypto's key type (EVP_PKEY_ED25519, EVP_PKEY_EC, EVP_PKEY_RSA).
        var baseID: Int32 { EVP_PKEY_get_base_id(pointer) }
        var bits: Int { Int(EVP_PKEY_get_bits(pointer)) }
    }

    enum Hash {
        case sha256, sha384, sha512
        var md: OpaquePointer? {
            switch self {
            case .sha256: EVP_sha256()
            case .sha384: EVP_sha384()
            case .sha512: EVP_sha512()
            }
        }
    }

    static let ed25519ID: Int32 = 1087  // EVP_PKEY_ED25519 (NID_ED25519)
    static let ecID: Int32 = 408  // EVP_PKEY_EC (NID_X9_62_id_ecPublicKey)
    static let rsaID: Int32 = 6  // EVP_PKEY_RSA (NID_rsaEncryption)
    /// EVP_PKEY_KEYPAIR: public and private key with their domain parameters (a macro Swift cannot import).
    static let keyPair: Int32 = 0x87

    /// OpenSSL's queued error text, emptied, for a diagnostic (never contains key material).
    static func drainErrors() -> String {
        var messages: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return messages.isEmpty ? "libcrypto refused it" : messages.joined(separator: "; ")
    }

    static func clearErrors() { ERR_clear_error() }

    // MARK: building keys from OpenSSH fields

    /// OSSL_PARAM values whose names and buffers outlive the OSSL_PARAM array that points at them.
    private final class Parameters {
        private var names: [UnsafeMutablePointer<CChar>] = []
        private var buffers: [SecretBytes] = []
        private var texts: [UnsafeMutablePointer<CChar>] = []
        private(set) var list: [OSSL_PARAM] = []

        deinit {
            names.forEach { free($0) }
            texts.forEach { free($0) }
        }

        private func name(_ text: String) -> UnsafeMutablePointer<CChar> {
            let pointer = strdup(text)!
            names.append(pointer)
            return pointer
        }

        func text(_ key: String, _ value: String) {
            let pointer = strdup(value)!
            texts.append(pointer)
            list.append(OSSL_PARAM_construct_utf8_string(name(key), pointer, 0))
        }

        func octets(_ key: String, _ value: UnsafeRawBufferPointer) {
            let copy = SecretBytes(copying: value)
            buffers.append(copy)
            copy.withBytes { pointer, count in
                list.append(OSSL_PARAM_construct_octet_string(name(key), pointer, count))
            }
        }

        /// A big-endian magnitude as OpenSSL's native-endian unsigned integer parameter.
        func number(_ key: String, bigEndian: UnsafeRawBufferPointer) {
            let native = SecretBytes(count: max(bigEndian.count, 1))
            native.withBytes { out, count in
                for index in 0..<bigEndian.count {
                    out[index] = bigEndian[isLittleEndian ? bigEndian.count - 1 - index : index]
                }
                if bigEndian.isEmpty { out[0] = 0 }
                list.append(OSSL_PARAM_construct_BN(name(key), out, count))
            }
            buffers.append(native)
        }

        func number(_ key: String, _ value: SecretBytes) {
            value.withUnsafeBytes { number(key, bigEndian: $0) }
        }

        private var isLittleEndian: Bool { 1.littleEndian == 1 }

        func withList<R>(_ body: (UnsafeMutablePointer<OSSL_PARAM>) -> R) -> R {
            var terminated = list + [OSSL_PARAM_construct_end()]
            return terminated.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
        }
    }

    private static func fromData(type: String, _ parameters: Parameters) -> Result<Key, KeyProblem> {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, type, nil) else {
            return .failure(KeyProblem("libcrypto has no \(type) support: \(drainErrors())"))
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer? = nil
        let rc = parameters.withList { list in
            EVP_PKEY_fromdata_init(context) == 1 ? EVP_PKEY_fromdata(context, &key, keyPair, list) : 0
        }
        guard rc == 1, let key else { return .failure(KeyProblem("the \(type) key is not valid: \(drainErrors())")) }
        return .success(Key(key))
    }

    /// An ECDSA key from its OpenSSH fields: the curve (OpenSSL's group name), the public point and the scalar.
    static func ecKey(
        group: String, point: UnsafeRawBufferPointer, scalar: UnsafeRawBufferPointer
    ) -> Result<Key, KeyProblem> {
        let parameters = Parameters()
        parameters.text("group", group)
        parameters.octets("pub", point)
        parameters.number("priv", bigEndian: scalar)
        return fromData(type: "EC", parameters)
    }

    /// An RSA key from OpenSSH's n, e, d, iqmp, p, q; libcrypto also wants d mod (p-1) and d mod (q-1).
    static func rsaKey(
        n: UnsafeRawBufferPointer, e: UnsafeRawBufferPointer, d: UnsafeRawBufferPointer,
        iqmp: UnsafeRawBufferPointer, p: UnsafeRawBufferPointer, q: UnsafeRawBufferPointer
    )
        -> Result<Key, KeyProblem>
    {
        guard let dp = reduce(d, moduloOneBelow: p), let dq = reduce(d, moduloOneBelow: q) else {
            return .failure(KeyProblem("the RSA key's primes are not usable: \(drainErrors())"))
        }
        let parameters = Parameters()
        parameters.number("n", bigEndian: n)
        parameters.number("e", bigEndian: e)
        parameters.number("d", bigEndian: d)
        parameters.number("rsa-factor1", bigEndian: p)
        parameters.number("rsa-factor2", bigEndian: q)
        parameters.number("rsa-exponent1", dp)
        parameters.number("rsa-exponent2", dq)
        parameters.number("rsa-coefficient1", bigEndian: iqmp)
        return fromData(type: "RSA", parameters)
    }

    /// d mod (prime - 1), computed in OpenSSL's secure big numbers and returned as a big-endian magnitude.
    private static func reduce(
        _ d: UnsafeRawBufferPointer, moduloOneBelow prime: UnsafeRawBufferPointer
    ) -> SecretBytes? {
        guard let context = BN_CTX_secure_new(), let dNumber = BN_secure_new(), let modulus = BN_secure_new(),
            let remainder = BN_secure_new()
        else { return nil }
        defer {
            BN_CTX_free(context)
            BN_clear_free(dNumber)
            BN_clear_free(modulus)
            BN_clear_free(remainder)
        }
        guard let dBase = d.baseAddress, let primeBase = prime.baseAddress,
            BN_bin2bn(dBase.assumingMemoryBound(to: UInt8.self), Int32(d.count), dNumber) != nil,
            BN_bin2bn(primeBase.assumingMemoryBound(to: UInt8.self), Int32(prime.count), modulus) != nil,
            BN_sub_word(modulus, 1) == 1, BN_div(nil, remainder, dNumber, modulus, context) == 1
        else { return nil }
        return bigEndian(remainder)
    }

    /// A BIGNUM's magnitude in guarded memory.
    static func bigEndian(_ number: OpaquePointer) -> SecretBytes {
        let length = (Int(BN_num_bits(number)) + 7) / 8
        let out = SecretBytes(count: length)
        out.withBytes { pointer, count in _ = BN_bn2binpad(number, pointer, Int32(count)) }
        return out
    }

    /// Full consistency check of a key that arrived from outside (ssh-add): points on the curve, primes prime,
    /// and the public half belonging to the private half.
    static func check(_ key: Key) -> Bool {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else { return false }
        defer { EVP_PKEY_CTX_free(context) }
        let ok = EVP_PKEY_check(context) == 1
        if !ok { ERR_clear_error() }
        return ok
    }

    // MARK: PEM key files

    /// A PEM private key (traditional or PKCS#8, encrypted or not). A missing passphrase for an encrypted file is
    /// a failure here, never a prompt: the callback answers -1 instead of letting OpenSSL read the terminal.
    static func readPEM(_ file: SecretBytes, passphrase: SecretBytes?) -> Result<Key, KeyProblem> {
        let key: OpaquePointer? = file.withBytes { pointer, count in
            guard let bio = BIO_new_mem_buf(pointer, Int32(count)) else { return nil }
            defer { BIO_free(bio) }
            let callback:
                @convention(c) (UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?) -> Int32 = {
                    buffer, size, _, context in
                    guard let buffer, let context else { return -1 }
                    let secret = Unmanaged<SecretBytes>.fromOpaque(context).takeUnretainedValue()
                    guard secret.count <= Int(size) else { return -1 }
                    secret.withBytes { source, length in
                        UnsafeMutableRawPointer(buffer).copyMemory(from: source, byteCount: length)
                    }
                    return Int32(secret.count)
                }
            if let passphrase {
                return withExtendedLifetime(passphrase) {
                    PEM_read_bio_PrivateKey(bio, nil, callback, Unmanaged.passUnretained(passphrase).toOpaque())
                }
            }
            return PEM_read_bio_PrivateKey(bio, nil, callback, nil)
        }
        guard let key else {
            return .failure(
                KeyProblem(
                    "the PEM key did not open (wrong passphrase, or a format libcrypto does not know): \(drainErrors())"
                ))
        }
        return .success(Key(key))
    }

    static func numberParameter(_ key: Key, _ name: String) -> SecretBytes? {
        var number: OpaquePointer? = nil
        guard EVP_PKEY_get_bn_param(key.pointer, name, &number) == 1, let number else {
            ERR_clear_error()
            return nil
        }
        defer { BN_clear_free(number) }
        return bigEndian(number)
    }

    static func octetParameter(_ key: Key, _ name: String) -> [UInt8]? {
        var length = 0
        guard EVP_PKEY_get_octet_string_param(key.pointer, name, nil, 0, &length) == 1 else {
            ERR_clear_error()
            return nil
        }
        var bytes = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_get_octet_string_param(key.pointer, name, &bytes, length, &length) == 1 else {
            ERR_clear_error()
            return nil
        }
        return Array(bytes.prefix(length))
    }

    static func textParameter(_ key: Key, _ name: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 80)
        var length = 0
        guard EVP_PKEY_get_utf8_string_param(key.pointer, name, &buffer, buffer.count, &length) == 1 else {
            ERR_clear_error()
            return nil
        }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// An Ed25519 key's 32-byte seed.
    static func rawPrivateKey(_ key: Key) -> SecretBytes? {
        let seed = SecretBytes(count: 32)
        var length = 32
        let ok = seed.withBytes { pointer, _ in EVP_PKEY_get_raw_private_key(key.pointer, pointer, &length) == 1 }
        return ok && length == 32 ? seed : nil
    }

    // MARK: signing

    /// The signature libcrypto makes with `hash`: PKCS#1 v1.5 for RSA, DER-encoded (r, s) for ECDSA.
    static func sign(_ key: Key, hash: Hash, data: [UInt8]) -> [UInt8]? {
        guard let context = EVP_MD_CTX_new() else { return nil }
        defer { EVP_MD_CTX_free(context) }
        var length = 0
        guard EVP_DigestSignInit(context, nil, hash.md, nil, key.pointer) == 1,
            EVP_DigestSign(context, nil, &length, data, data.count) == 1
        else {
            ERR_clear_error()
            return nil
        }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, data, data.count) == 1 else {
            ERR_clear_error()
            return nil
        }
        return Array(signature.prefix(length))
    }

    /// r and s of a DER-encoded ECDSA signature, as big-endian magnitudes.
    static func ecdsaParts(_ der: [UInt8]) -> (r: [UInt8], s: [UInt8])? {
        der.withUnsafeBufferPointer { buffer -> (r: [UInt8], s: [UInt8])? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let signature = d2i_ECDSA_SIG(nil, &cursor, buffer.count) else { return nil }
            defer { ECDSA_SIG_free(signature) }
            var r: OpaquePointer? = nil
            var s: OpaquePointer? = nil
            ECDSA_SIG_get0(signature, &r, &s)
            guard let r, let s else { return nil }
            return (publicBytes(r), publicBytes(s))
        }
    }

    private static func publicBytes(_ number: OpaquePointer) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: (Int(BN_num_bits(number)) + 7) / 8)
        _ = BN_bn2binpad(number, &bytes, Int32(bytes.count))
        return bytes
    }

    // MARK: verifying (public keys only)

    /// EVP_PKEY_PUBLIC_KEY: the public key with its domain parameters (a macro Swift cannot import).
    static let publicKeyOnly: Int32 = 0x86

    private static func publicFromData(type: String, _ parameters: Parameters) -> Key? {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, type, nil) else { return nil }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer? = nil
        let rc = parameters.withList { list in
            EVP_PKEY_fromdata_init(context) == 1 ? EVP_PKEY_fromdata(context, &key, publicKeyOnly, list) : 0
        }
        guard rc == 1, let key else {
            clearErrors()
            return nil
        }
        return Key(key)
    }

    static func ecPublicKey(group: String, point: UnsafeRawBufferPointer) -> Key? {
        let parameters = Parameters()
        parameters.text("group", group)
        parameters.octets("pub", point)
        return publicFromData(type: "EC", parameters)
    }

    static func rsaPublicKey(n: UnsafeRawBufferPointer, e: UnsafeRawBufferPointer) -> Key? {
        let parameters = Parameters()
        parameters.number("n", bigEndian: n)
        parameters.number("e", bigEndian: e)
        return publicFromData(type: "RSA", parameters)
    }

    static func verify(_ key: Key, hash: Hash, signature: [UInt8], data: [UInt8]) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        let ok =
            EVP_DigestVerifyInit(context, nil, hash.md, nil, key.pointer) == 1
            && EVP_DigestVerify(context, signature, signature.count, data, data.count) == 1
        clearErrors()
        return ok
    }

    /// DER for an ECDSA signature given as SSH's (r, s) magnitudes.
    static func ecdsaDER(r: UnsafeRawBufferPointer, s: UnsafeRawBufferPointer) -> [UInt8]? {
        guard let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        guard let rNumber = BN_bin2bn(r.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(r.count), nil) else {
            return nil
        }
        guard let sNumber = BN_bin2bn(s.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(s.count), nil) else {
            BN_free(rNumber)
            return nil
        }
        guard ECDSA_SIG_set0(signature, rNumber, sNumber) == 1 else {
            BN_free(rNumber)
            BN_free(sNumber)
            return nil
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        return written == length ? der : nil
    }
}
