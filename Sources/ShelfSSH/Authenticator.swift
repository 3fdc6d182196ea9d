// Authenticator: logs one verified hop in — methods in OpenSSH's order (publickey, keyboard-interactive,
// password) limited to what the server offers; each credential fetched only when its method is tried.
import CLibSSH2
import Foundation
import ShelfCore

struct Authenticator {
    let session: Session
    let hop: SSHEndpoint
    let options: ConnectOptions
    let credentials: CredentialSource
    let delegate: ConnectDelegate

    enum Method: String { case publickey, agent, keyboardInteractive = "keyboard-interactive", password }

    /// The methods to try, in order, for the host's configured method.
    static func plan(_ method: AuthMethod, hasKey: Bool, hasAgent: Bool) -> [Method] {
        switch method {
        case .publickey: return (hasKey ? [.publickey] : []) + (hasAgent ? [.agent] : [])
        case .agent: return [.agent]
        case .password: return [.password]
        case .keyboardInteractive: return [.keyboardInteractive]
        case .auto, .other:
            return (hasKey ? [.publickey] : []) + (hasAgent ? [.agent] : []) + [.keyboardInteractive, .password]
        }
    }

    static func wireName(_ method: Method) -> String { method == .agent ? "publickey" : method.rawValue }

    func run(outcome: inout ConnectOutcome) throws(SSHError) {
        guard let offered = try session.offeredMethods(user: hop.user) else {
            outcome.methods.append("none")
            return
        }
        let hasKey = hop.identity.map { $0.privateKeyRef != nil || !$0.keyFile.isEmpty } ?? false
        let planned = Self.plan(hop.authMethod, hasKey: hasKey, hasAgent: options.agentSocket != nil)
        let methods = planned.filter { offered.contains(Self.wireName($0)) }
        var failures: [String] = []
        var rsaRejected = false
        for method in methods {
            delegate.note(.authenticating(hop: hop.name, method: method.rawValue))
            let accepted: Bool
            switch method {
            case .publickey:
                let result = try publicKey()
                accepted = result.accepted
                rsaRejected = rsaRejected || (!result.accepted && result.type == .rsa)
            case .agent: accepted = try agent()
            case .keyboardInteractive: accepted = try keyboardInteractive()
            case .password: accepted = try password(outcome: &outcome)
            }
            if accepted {
                delegate.note(.authenticated(hop: hop.name, method: method.rawValue))
                outcome.methods.append(method.rawValue)
                return
            }
            failures.append(method.rawValue)
        }
        if rsaRejected {
            throw SSHError(
                .rsaSignatureUnsupported,
                "\(hop.destination) rejected the RSA key: libssh2 \(LibSSH2.version) can only sign with ssh-rsa (SHA-1), which OpenSSH 8.8 and later refuse",
                library: session.lastError(),
                hint: "use an ed25519 key (sshelf keygen, or ssh-keygen -t ed25519), or a libssh2 >= 1.11")
        }
        let tried = failures.isEmpty ? "nothing sshelf could try" : failures.joined(separator: ", ")
        throw SSHError(
            .authenticationFailed,
            "authentication failed for \(hop.destination): tried \(tried); the server offers \(offered.joined(separator: ", "))",
            library: session.lastError(),
            hint: failures.contains("password") ? "check the password" : "check the host's --auth method and --identity")
    }

    // MARK: public key

    private func publicKey() throws(SSHError) -> (accepted: Bool, type: KeyType?) {
        guard let identity = hop.identity else { return (false, nil) }
        let key: SecretBytes
        if let reference = identity.privateKeyRef {
            key = try require(credentials.privateKey(for: reference), what: "private key of identity '\(identity.name)'")
        } else {
            key = try KeyFile.read(identity.keyFile)
        }
        let info = PrivateKeyInfo.inspect(key)
        var passphrase: SecretBytes? = nil
        if info.encrypted {
            if let reference = identity.passphraseRef,
                case .found(let stored) = try lookup(credentials.keyPassphrase(for: reference), what: "passphrase of identity '\(identity.name)'")
            {
                passphrase = stored
            } else {
                guard let typed = delegate.askKeyPassphrase(hopName: hop.name, keyDescription: identity.name) else {
                    throw SSHError(.cancelled, "no passphrase for the key of identity '\(identity.name)'")
                }
                passphrase = typed
            }
        }
        let code = session.publicKey(user: hop.user, privateKey: key, passphrase: passphrase)
        if code == LIBSSH2_ERROR_FILE || code == LIBSSH2_ERROR_KEYFILE_AUTH_FAILED {
            throw SSHError(.authenticationFailed, "the private key of identity '\(identity.name)' could not be loaded",
                           library: session.lastError(), hint: "wrong passphrase, or a key format libssh2 1.10 cannot read")
        }
        return (code == 0, info.type)
    }

    // MARK: agent

    private func agent() throws(SSHError) -> Bool {
        guard let socket = options.agentSocket else { return false }
        return try session.agent(user: hop.user, socketPath: socket).accepted
    }

    // MARK: password

    private func password(outcome: inout ConnectOutcome) throws(SSHError) -> Bool {
        var note: String? = nil
        if let reference = hop.passwordRef {
            switch try lookup(credentials.password(for: reference), what: "password") {
            case .found(let stored):
                guard !stored.isEmpty else { throw notSynced() }
                if session.password(user: hop.user, secret: stored) == 0 { return true }
                throw SSHError(.authenticationFailed, "\(hop.destination) rejected the stored password",
                               library: session.lastError(), hint: "update it: sshelf edit \(hop.name) --password")
            case .locked: note = "the vault is locked"
            case .unavailable(let reason): note = reason
            case .notStored: throw notSynced()
            }
        }
        for attempt in 1...max(1, options.passwordAttempts) {
            let request = PasswordRequest(hopName: hop.name, user: hop.user, destination: hop.destination,
                                          attempt: attempt, canRemember: credentials.canRemember && hop.hostID != nil,
                                          note: note)
            guard let answer = delegate.askPassword(request) else {
                if attempt == 1 { throw SSHError(.cancelled, "no password given for \(hop.destination)") }
                return false
            }
            guard !answer.password.isEmpty else { continue }
            if session.password(user: hop.user, secret: answer.password) == 0 {
                if answer.remember, let hostID = hop.hostID,
                    let reference = credentials.rememberPassword(answer.password, forHost: hostID)
                {
                    outcome.rememberedPasswords.append((hostID, reference))
                }
                return true
            }
        }
        return false
    }

    // MARK: keyboard-interactive

    private func keyboardInteractive() throws(SSHError) -> Bool {
        var failure: SSHError? = nil
        var cancelled = false
        let hop = self.hop, credentials = self.credentials, delegate = self.delegate
        let code = session.keyboardInteractive(user: hop.user) { name, instruction, prompts in
            if prompts.isEmpty { return [] }
            // A lone hidden prompt is the password prompt: answer it from the store when the host has one.
            if prompts.count == 1, !prompts[0].echo, let reference = hop.passwordRef {
                switch credentials.password(for: reference) {
                case .found(let stored) where !stored.isEmpty: return [stored]
                case .notStored, .found:
                    failure = self.notSynced()
                    return nil
                case .locked, .unavailable: break
                }
            }
            let challenge = KeyboardChallenge(
                hopName: hop.name, name: UntrustedText.clean(name), instruction: UntrustedText.clean(instruction),
                prompts: prompts.map { KeyboardPrompt(text: UntrustedText.clean($0.text), echo: $0.echo) })
            guard let answers = delegate.answer(challenge) else {
                cancelled = true
                return nil
            }
            return answers
        }
        if let failure { throw failure }
        if cancelled && code != 0 { throw SSHError(.cancelled, "keyboard-interactive login cancelled") }
        return code == 0
    }

    // MARK: lookups

    private func notSynced() -> SSHError {
        SSHError(.credentialNotSynced, "the credential for \(hop.name) has not synced to this device yet",
                 hint: credentials.notSyncedHint ?? "check 'sshelf sync status' on both devices; the device where it was saved must sync it first")
    }

    private func lookup(_ result: CredentialLookup, what: String) throws(SSHError) -> CredentialLookup {
        if case .notStored = result { throw notSynced() }
        return result
    }

    /// A secret that must come from the store (no prompt can replace a private key).
    private func require(_ result: CredentialLookup, what: String) throws(SSHError) -> SecretBytes {
        switch result {
        case .found(let secret) where !secret.isEmpty: return secret
        case .found, .notStored: throw notSynced()
        case .locked:
            throw SSHError(.credentialUnavailable, "the \(what) is in the vault, which is locked",
                           hint: "unlock the vault first: sshelf vault unlock")
        case .unavailable(let reason):
            throw SSHError(.credentialUnavailable, "the \(what) cannot be read: \(reason)")
        }
    }
}

/// Private key files named by an identity's `keyFile`: read into memory once, never written anywhere.
enum KeyFile {
    static func read(_ path: String) throws(SSHError) -> SecretBytes {
        let expanded = path.hasPrefix("~/") ? NSHomeDirectory() + String(path.dropFirst(1)) : path
        let fd = open(expanded, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw SSHError(.credentialUnavailable, "cannot read the key file \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var bytes = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = Glibc.read(fd, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            bytes += chunk[0..<count]
            guard bytes.count < 1 << 20 else { break }
        }
        chunk.withUnsafeMutableBytes { explicit_bzero($0.baseAddress!, $0.count) }
        return SecretBytes.take(&bytes)
    }
}
