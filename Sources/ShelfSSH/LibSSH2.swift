// LibSSH2: library initialisation (once per process), its version, and what the libssh2 this process loaded can do
// — asked of the library at run time (its version, and each newer function looked up by name), never assumed from
// the header sshelf was built with: the release binary loads the distribution's libssh2, 1.10 or 1.11.
import CLibSSH2
import FoundationEssentials

public enum LibSSH2 {
    /// The libssh2 version this process runs against (not the one it was built with).
    public static var version: String {
        guard let text = libssh2_version(0) else { return "unknown" }
        return String(cString: text)
    }

    /// Where a user of the package gets a libssh2 that signs RSA keys with rsa-sha2 and has what 1.11 added: the
    /// distribution's package (Debian 12 has only 1.10; the source tree's `make install-libssh2-1.11` is for
    /// developers, docs/SSH.md).
    public static let newerPackage = "Debian 13 and Ubuntu 24.04 have it: the package libssh2-1t64"

    /// The file the loaded libssh2 was opened from (the loader's answer for one of its functions).
    public static var path: String { sshelf_libssh2_path().map { String(cString: $0) } ?? "unknown" }

    /// Whether the loaded library is `major.minor.patch` or newer (libssh2_version answers NULL when it is older).
    public static func isAtLeast(_ major: Int, _ minor: Int, _ patch: Int = 0) -> Bool {
        libssh2_version(Int32(major << 16 | minor << 8 | patch)) != nil
    }

    private static let initialised: Bool = libssh2_init(0) == 0

    /// libssh2_init is not thread-safe; a Swift static is initialised exactly once.
    static func initialiseOnce() { _ = initialised }

    /// Whether a session object can be created (the library and its crypto backend initialise).
    public static func selfTest() -> Bool {
        guard initialised, let session = libssh2_session_init_ex(nil, nil, nil, nil) else { return false }
        libssh2_session_free(session)
        return true
    }

    /// The loaded library's function `name` (one newer than the header's), or nil when this libssh2 lacks it.
    static func optional<Function>(_ name: String, as type: Function.Type) -> Function? {
        guard let address = sshelf_libssh2_optional(name) else { return nil }
        return unsafeBitCast(address, to: type)
    }

    /// What the loaded library can do, found out once.
    public static let features = Features.probe()

    public struct Features: Sendable, Equatable {
        /// RSA user keys sign with rsa-sha2-512/256 (RFC 8332; libssh2 1.11): OpenSSH 8.8 and later refuse ssh-rsa.
        public var rsaSHA2: Bool
        /// The server's text before login (SSH_MSG_USERAUTH_BANNER): libssh2_userauth_banner.
        public var userauthBanner: Bool
        /// A signal sent to the remote command (Ctrl-C): libssh2_channel_signal_ex.
        public var channelSignal: Bool
        /// An agent signs for us with the RSA algorithm asked for: libssh2_agent_sign.
        public var agentSign: Bool
        /// FIDO security keys (sk-ssh-ed25519@openssh.com, sk-ecdsa…): libssh2_userauth_publickey_sk.
        public var securityKeys: Bool
        /// Forwards to a unix socket on the server (direct-streamlocal@openssh.com):
        /// libssh2_channel_direct_streamlocal_ex.
        public var unixSocketForwards: Bool
        /// OpenSSH user certificates (CertificateFile): 1.11 names the signature after the key, not the
        /// certificate (1.10 sends `ssh-ed25519-cert-v01@openssh.com` as the signature's algorithm: refused).
        public var userCertificates: Bool
        /// The ciphers it was built with (1.11 adds chacha20-poly1305 and AES-GCM).
        public var ciphers: [String]

        static func probe() -> Features {
            Features(
                rsaSHA2: LibSSH2.isAtLeast(1, 11),
                userauthBanner: sshelf_libssh2_optional("libssh2_userauth_banner") != nil,
                channelSignal: sshelf_libssh2_optional("libssh2_channel_signal_ex") != nil,
                agentSign: sshelf_libssh2_optional("libssh2_agent_sign") != nil,
                securityKeys: sshelf_libssh2_optional("libssh2_userauth_publickey_sk") != nil,
                unixSocketForwards: sshelf_libssh2_optional("libssh2_channel_direct_streamlocal_ex") != nil,
                userCertificates: LibSSH2.isAtLeast(1, 11),
                ciphers: LibSSH2.selfTest() ? Session.builtCiphers() : [])
        }

        /// One line per feature, as `sshelf version --verbose` prints them: the feature, then yes/no and why.
        public var lines: [String] {
            func row(_ has: Bool, _ what: String, _ without: String) -> String {
                "  \(has ? "yes" : "no ") \(what)\(has ? "" : " (\(without))")"
            }
            let newer = "libssh2 1.11 or later"
            return [
                row(
                    rsaSHA2, "RSA keys sign with rsa-sha2-512/256",
                    newer + "; sshelf connect hands an RSA host to OpenSSH"),
                row(userauthBanner, "the server's login banner is shown", newer),
                row(channelSignal, "Ctrl-C reaches the remote command of sshelf exec as INT (without a PTY)", newer),
                row(agentSign, "agent keys sign with the algorithm the server takes (rsa-sha2 for RSA)", newer),
                row(securityKeys, "FIDO security keys in the library (sshelf does not use them yet)", newer),
                row(
                    unixSocketForwards, "-L forwards to a unix socket on the server (direct-streamlocal)",
                    newer + "; sshelf forward start --openssh runs them"),
                row(
                    userCertificates, "user certificates (CertificateFile) in sshelf's own client",
                    newer + "; sshelf connect hands such a host to OpenSSH"),
                "  ciphers: \(ciphers.isEmpty ? "(the library could not start)" : ciphers.joined(separator: ", "))",
            ]
        }
    }
}
