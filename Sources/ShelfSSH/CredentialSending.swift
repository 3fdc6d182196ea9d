// CredentialSending: the only way a credential reaches the server — each call is on a VerifiedSession, which only
// the host-key check makes, so no password, key, keyboard answer or agent signature can be sent to a server whose
// host key was not verified (the compiler holds it: VerifiedSessionTests). The user is the verified hop's.
import CLibSSH2
import FoundationEssentials
import ShelfSystem

extension VerifiedSession {
    private var user: String { hop.user }

    func sendPassword(_ secret: SecretBytes) -> Int32 {
        secret.withUnsafeBytes { bytes in
            // A zero-length secret never reaches here (the flow refuses empty passwords); this only keeps C happy.
            var empty: CChar = 0
            let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self) ?? withUnsafePointer(to: &empty) { $0 }
            return libssh2_userauth_password_ex(
                session.raw, user, UInt32(user.utf8.count), base, UInt32(bytes.count), nil)
        }
    }

    func sendPublicKey(_ privateKey: SecretBytes, passphrase: SecretBytes?) -> Int32 {
        // libssh2 1.10 runs strlen() over the key while parsing PEM: it must be NUL-terminated (withNulTerminated
        // adds the NUL to a guarded copy, zeroed afterwards).
        privateKey.withNulTerminated { key, _ in
            let run = { (phrase: UnsafePointer<CChar>?) -> Int32 in
                libssh2_userauth_publickey_frommemory(
                    session.raw, user, user.utf8.count, nil, 0, key, privateKey.count, phrase)
            }
            guard let passphrase else { return run(nil) }
            return passphrase.withNulTerminated { phrase, _ in run(phrase) }
        }
    }

    /// Logs in offering `publicBlob` (a user certificate) while `sign` makes the signature.
    func sendPublicKey(_ publicBlob: [UInt8], sign: @escaping ([UInt8]) -> [UInt8]?) -> Int32 {
        session.context.signer = sign
        defer { session.context.signer = nil }
        var abstract: UnsafeMutableRawPointer? = Unmanaged.passUnretained(session.context).toOpaque()
        return publicBlob.withUnsafeBufferPointer { blob in
            libssh2_userauth_publickey(session.raw, user, blob.baseAddress, blob.count, signCallback, &abstract)
        }
    }

    /// Runs keyboard-interactive; `respond` answers each round of prompts (nil cancels).
    func sendKeyboardInteractive(respond: @escaping KeyboardResponder) -> Int32 {
        session.context.keyboard = respond
        defer { session.context.keyboard = nil }
        return libssh2_userauth_keyboard_interactive_ex(session.raw, user, UInt32(user.utf8.count), keyboardCallback)
    }

    /// Tries every identity in the agent at `socketPath`; returns true when one was accepted.
    func sendAgentKeys(socketPath: String) throws(SSHError) -> (accepted: Bool, tried: Int) {
        guard let agent = libssh2_agent_init(session.raw) else {
            throw SSHError(.authenticationFailed, "could not start talking to ssh-agent", library: session.lastError())
        }
        defer { libssh2_agent_free(agent) }
        libssh2_agent_set_identity_path(agent, socketPath)
        guard libssh2_agent_connect(agent) == 0 else {
            throw SSHError(
                .authenticationFailed, "cannot reach ssh-agent at \(socketPath)", library: session.lastError(),
                hint: "is the agent running? (SSH_AUTH_SOCK)")
        }
        defer { libssh2_agent_disconnect(agent) }
        guard libssh2_agent_list_identities(agent) == 0 else {
            throw SSHError(.authenticationFailed, "ssh-agent did not list its keys", library: session.lastError())
        }
        var previous: UnsafeMutablePointer<libssh2_agent_publickey>? = nil
        var tried = 0
        while true {
            var current: UnsafeMutablePointer<libssh2_agent_publickey>? = nil
            let next = libssh2_agent_get_identity(agent, &current, previous)
            guard next == 0, let identity = current else { break }
            tried += 1
            if libssh2_agent_userauth(agent, user, identity) == 0 { return (true, tried) }
            previous = identity
        }
        return (false, tried)
    }
}
