// Authenticator: logs one verified hop in — the AuthPlan's steps (OpenSSH's order: publickey, agent,
// keyboard-interactive, password) limited to what the server offers; each credential fetched only when its
// step is tried, always through the hop's VerifiedSession.
import CLibSSH2
import FoundationEssentials
import ShelfCore
import ShelfSystem

struct Authenticator {
    let verified: VerifiedSession
    let options: ConnectOptions
    let credentials: CredentialSource
    let delegate: ConnectDelegate

    var session: Session { verified.session }
    var hop: SSHEndpoint { verified.hop }

    func run(outcome: inout ConnectOutcome) throws(SSHError) {
        let plan = AuthPlan.steps(for: hop, agentSocket: options.agentSocket, environment: options.environment)
        // The methods the server offers: asked first, or (keyBeforeMethods, the plan starting with a key) only once
        // that key was refused, so a login with its first key takes one round trip less.
        var offered: [String]? = nil
        /// Asks for the methods; false when the "none" request itself logged in.
        func learnMethods() throws(SSHError) -> Bool {
            guard let listed = try offeredMethods() else {
                outcome.methods.append("none")
                return false
            }
            offered = listed
            return true
        }
        let keyFirst = options.keyBeforeMethods && plan.first?.isOwnKey == true
        if !keyFirst, try !learnMethods() { return }
        var failures: [String] = []
        // Why a key was refused, when sshelf knows: said in the end whatever a later method did (a password prompt
        // nobody could answer must not hide it).
        var keyRefusal: SSHError? = nil
        // A vault key the vault cannot open now, while an agent comes later in the plan (as --dry-run lists it): the
        // agent may hold that key, so it is tried; this error is what the user sees if nothing else logs in.
        let agentLater = plan.contains { if case .agent(_?) = $0 { true } else { false } }
        var keyUnavailable: SSHError? = nil
        for (index, step) in plan.enumerated() {
            // Only the plan's first key goes before the methods are known.
            if offered == nil && index > 0, try !learnMethods() { return }
            if let offered, !offered.contains(step.wireName) { continue }
            delegate.note(.authenticating(hop: hop.name, method: step.name))
            let accepted: Bool
            do throws(SSHError) {
                switch step {
                case .publicKey(_, .optionalFile(let path))
                where !KeyFile.exists(path, environment: options.environment):
                    continue
                case .publicKey(let identity, let source):
                    let result: (accepted: Bool, type: KeyType?)
                    do throws(SSHError) {
                        result = try publicKey(identity: identity, source: source, outcome: &outcome)
                    } catch  where error.kind == .credentialUnavailable && agentLater {
                        keyUnavailable = keyUnavailable ?? error
                        failures.append(step.name)
                        continue
                    }
                    accepted = result.accepted
                    if !accepted, result.type == .rsa, !LibSSH2.features.rsaSHA2 {
                        // libssh2 1.10 signs only ssh-rsa (SHA-1): the host's own key cannot work, and asking for a
                        // password instead would hide why — stop here, with the fix. One more IdentityFile of the
                        // host's options is only one of several keys: the next is tried, and this is the reason
                        // given if none works.
                        guard case .optionalFile = source else { throw rsaUnsupported(identity: identity) }
                        keyRefusal = keyRefusal ?? rsaUnsupported(identity: identity)
                    }
                case .agent(let socket): accepted = try agent(socket)
                case .keyboardInteractive(let stored): accepted = try keyboardInteractive(storedPassword: stored)
                case .password(let stored): accepted = try password(stored: stored, outcome: &outcome)
                }
            } catch let error where error.kind == .cancelled {
                guard let refusal = keyRefusal ?? keyUnavailable else { throw error }
                throw SSHError(
                    refusal.kind, "\(refusal.message); then: \(error.message)", library: refusal.libraryMessage,
                    hint: refusal.hint)
            }
            if accepted {
                delegate.note(.authenticated(hop: hop.name, method: step.name))
                outcome.methods.append(step.name)
                return
            }
            switch step {
            case .publicKey(let identity, .vault) where keyRefusal == nil,
                .publicKey(let identity, .file) where keyRefusal == nil:
                keyRefusal = SSHError(
                    .authenticationFailed, "\(hop.destination) refused the key of identity '\(identity)'",
                    library: session.lastError(),
                    hint: "install its public key on the host (sshelf copy-id \(hop.name)), or check "
                        + "the host's --identity")
            default: break
            }
            failures.append(step.name)
        }
        if offered == nil, try !learnMethods() { return }
        if let keyRefusal, keyRefusal.kind == .rsaSignatureUnsupported { throw keyRefusal }
        if let keyUnavailable { throw keyUnavailable }
        let tried = failures.isEmpty ? "nothing sshelf could try" : failures.joined(separator: ", ")
        throw SSHError(
            .authenticationFailed,
            "authentication failed for \(hop.destination): tried \(tried); the server offers "
                + "\(offered?.joined(separator: ", ") ?? "")"
                + (keyRefusal.map { " (\($0.message))" } ?? ""),
            library: session.lastError(),
            hint: failures.contains("password") ? "check the password" : "check the host's --auth method and --identity"
        )
    }

    /// The methods the server offers (nil: the "none" request logged in), and the banner it sent with them.
    private func offeredMethods() throws(SSHError) -> [String]? {
        let offered = try session.offeredMethods(user: hop.user)
        if let banner = session.userauthBanner().map(UntrustedText.clean), !banner.isEmpty {
            delegate.note(.banner(hop: hop.name, text: banner))
        }
        return offered
    }

    /// An RSA key refused while the loaded libssh2 can sign only ssh-rsa: the reason and every way out.
    private func rsaUnsupported(identity: String) -> SSHError {
        SSHError(
            .rsaSignatureUnsupported,
            "\(hop.destination) refused the RSA key of identity '\(identity)': libssh2 \(LibSSH2.version) can only "
                + "sign with ssh-rsa (SHA-1), which OpenSSH 8.8 and later refuse",
            library: session.lastError(),
            hint:
                "use an ed25519 key (sshelf keygen, or ssh-keygen -t ed25519), or libssh2 1.11 or newer "
                + "(\(LibSSH2.newerPackage)); sshelf connect \(hop.name) --openssh logs in with this key "
                + "through OpenSSH")
    }

    // MARK: public key

    private func publicKey(identity name: String, source: AuthStep.KeySource, outcome: inout ConnectOutcome)
        throws(SSHError)
        -> (accepted: Bool, type: KeyType?)
    {
        let key: SecretBytes
        switch source {
        case .vault(let reference):
            key = try require(
                credentials.privateKey(for: reference, on: verified), what: "private key of identity '\(name)'")
        case .file(let path), .optionalFile(let path):
            key = try KeyFile.read(path, environment: options.environment)
        }
        let info = PrivateKeyInfo.inspect(key)
        var passphrase: SecretBytes? = nil
        var keep: UUID? = nil
        if info.encrypted {
            var remembered: CredentialLookup? = nil
            if let reference = hop.identity?.passphraseRef {
                remembered = try lookup(credentials.keyPassphrase(for: reference, on: verified))
            }
            if case .found(let stored)? = remembered {
                passphrase = stored
            } else {
                // The identity's own key file may have its passphrase remembered (an item of the identity's family).
                let owner = source.isIdentityFile ? hop.identity?.id : nil
                let request = KeyPassphraseRequest(
                    verified, keyDescription: name,
                    canRemember: owner != nil && credentials.canRemember)
                guard let typed = delegate.askKeyPassphraseToKeep(request) else {
                    throw noKeyPassphrase(identity: name, remembered: remembered)
                }
                passphrase = typed.password
                if typed.remember && request.canRemember { keep = owner }
            }
        }
        var code: Int32 = LIBSSH2_ERROR_AUTHENTICATION_FAILED
        // A certificate of this key among the host's CertificateFiles goes first, as OpenSSH offers it; the plain
        // key after it when the server takes no certificate.
        if LibSSH2.features.userCertificates, let certificate = certificate(for: source),
            let signer = options.certificateSigner
        {
            code = verified.sendPublicKey(certificate) { data in
                signer(key, passphrase, data)
            }
        }
        if code != 0 { code = verified.sendPublicKey(key, passphrase: passphrase) }
        if code == 0, let identityID = keep, let passphrase,
            let reference = credentials.rememberKeyPassphrase(passphrase, identityID: identityID, on: verified)
        {
            outcome.rememberedKeyPassphrases.append((identityID, reference))
        }
        if code == LIBSSH2_ERROR_FILE || code == LIBSSH2_ERROR_KEYFILE_AUTH_FAILED {
            throw SSHError(
                .authenticationFailed, "the private key of identity '\(name)' could not be loaded",
                library: session.lastError(), hint: "wrong passphrase, or a key format libssh2 1.10 cannot read")
        }
        return (code == 0, info.type)
    }

    /// The certificate (its blob) among the host's CertificateFiles that certifies the key `source` holds, whose
    /// public half is the identity's public key, or PATH.pub for another IdentityFile.
    private func certificate(for source: AuthStep.KeySource) -> [UInt8]? {
        let paths = hop.settings.certificateFiles
        guard !paths.isEmpty else { return nil }
        let line: String?
        switch source {
        case .vault, .file: line = hop.identity?.publicKey
        case .optionalFile(let path):
            line = try? String(
                contentsOfFile: KeyFile.expanded(path, environment: options.environment) + ".pub",
                encoding: .utf8)
        }
        guard let blob = line.flatMap(IdentityKeys.blob(of:)) else { return nil }
        return UserCertificate.matching(blob, paths: paths, environment: options.environment)
    }

    // MARK: agent

    private func agent(_ socket: String?) throws(SSHError) -> Bool {
        guard let socket else { return false }
        return try verified.sendAgentKeys(socketPath: socket).accepted
    }

    // MARK: password

    private func password(stored: ReferenceKey?, outcome: inout ConnectOutcome) throws(SSHError) -> Bool {
        var note: String? = nil
        // Why the stored password could not be used: what the user is told when nobody can type one instead.
        var storedFailure: SSHError? = nil
        if let reference = stored {
            switch try lookup(credentials.password(for: reference, on: verified)) {
            case .found(let stored):
                guard !stored.isEmpty else { throw notSynced() }
                if verified.sendPassword(stored) == 0 { return true }
                throw SSHError(
                    .authenticationFailed, "\(hop.destination) rejected the stored password",
                    library: session.lastError(), hint: "store the right one: sshelf vault set-password \(hop.name)")
            case .locked:
                note = "the vault is locked"
                storedFailure = unusable(.locked)
            case .unavailable(let reason, let hint):
                note = reason
                storedFailure = unusable(.unavailable(reason: reason, hint: hint))
            case .notStored: throw notSynced()
            }
        }
        for attempt in 1...max(1, hop.settings.numberOfPasswordPrompts ?? options.passwordAttempts) {
            let request = PasswordRequest(
                verified, attempt: attempt,
                canRemember: credentials.canRemember && hop.hostID != nil, note: note)
            guard let answer = delegate.askPassword(request) else {
                if attempt == 1 {
                    throw storedFailure ?? SSHError(.cancelled, "no password given for \(hop.destination)")
                }
                return false
            }
            guard !answer.password.isEmpty else { continue }
            if verified.sendPassword(answer.password) == 0 {
                if answer.remember, let hostID = hop.hostID,
                    let reference = credentials.rememberPassword(answer.password, forHost: hostID, on: verified)
                {
                    outcome.rememberedPasswords.append((hostID, reference))
                }
                return true
            }
        }
        return false
    }

    // MARK: keyboard-interactive

    private func keyboardInteractive(storedPassword: ReferenceKey?) throws(SSHError) -> Bool {
        var failure: SSHError? = nil
        var storedFailure: SSHError? = nil
        var cancelled = false
        let verified = self.verified, credentials = self.credentials, delegate = self.delegate
        let code = verified.sendKeyboardInteractive { name, instruction, prompts in
            if prompts.isEmpty { return [] }
            // A lone hidden prompt is the password prompt: answer it from the store when the host has one.
            if prompts.count == 1, !prompts[0].echo, let reference = storedPassword {
                let result = credentials.password(for: reference, on: verified)
                switch result {
                case .found(let stored) where !stored.isEmpty: return [stored]
                case .notStored, .found:
                    failure = self.notSynced()
                    return nil
                case .locked, .unavailable: storedFailure = self.unusable(result)
                }
            }
            let challenge = KeyboardChallenge(
                verified, name: UntrustedText.clean(name), instruction: UntrustedText.clean(instruction),
                prompts: prompts.map { KeyboardPrompt(text: UntrustedText.clean($0.text), echo: $0.echo) })
            guard let answers = delegate.answer(challenge) else {
                cancelled = true
                return nil
            }
            return answers
        }
        if let failure { throw failure }
        if cancelled && code != 0 {
            throw storedFailure ?? SSHError(.cancelled, "keyboard-interactive login cancelled")
        }
        return code == 0
    }

    // MARK: lookups

    /// A locked vault's fix: its passphrase, as each face takes it.
    private static let giveThePassphrase = Hint(
        .passphrase(.give), .text(" (see '"), .command(["vault", "status"]), .text("')"))

    /// The stored password is there but cannot be read (vault locked or broken): the vault's own reason.
    private func unusable(_ result: CredentialLookup) -> SSHError? {
        switch result {
        case .locked:
            return SSHError(
                .credentialUnavailable, "the password for \(hop.name) is in the vault, which is locked",
                guidance: Self.giveThePassphrase)
        case .unavailable(let reason, let hint):
            return SSHError(
                .credentialUnavailable, "the password for \(hop.name) is in the vault, which cannot be read: \(reason)",
                guidance: hint ?? Hint(.text("see '"), .command(["vault", "status"]), .text("'")))
        case .found, .notStored:
            return nil
        }
    }

    private func notSynced() -> SSHError {
        SSHError(
            .credentialNotSynced, "the credential for \(hop.name) has not synced to this device yet",
            hint: credentials.notSyncedHint
                ?? "check 'sshelf sync status' on both devices; the device where it was saved must sync it first")
    }

    private func lookup(_ result: CredentialLookup) throws(SSHError) -> CredentialLookup {
        if case .notStored = result { throw notSynced() }
        return result
    }

    /// Nobody typed the key's passphrase: when the vault holds it but could not give it (a locked session, with no
    /// terminal to ask for the vault passphrase on), the vault's reason and fix, not only the missing passphrase.
    private func noKeyPassphrase(identity name: String, remembered: CredentialLookup?) -> SSHError {
        let what = "no passphrase for the key of identity '\(name)'"
        switch remembered {
        case .unavailable(let reason, let hint)?:
            return SSHError(
                .credentialUnavailable, "\(what): the vault remembers it but cannot give it: \(reason)",
                guidance: hint)
        case .locked?:
            return SSHError(
                .credentialUnavailable, "\(what): the vault remembers it, and the vault session is locked",
                hint: "sshelf vault unlock, then try again")
        case .found?, .notStored?, nil:
            return SSHError(.cancelled, what)
        }
    }

    /// A secret that must come from the store (no prompt can replace a private key).
    private func require(_ result: CredentialLookup, what: String) throws(SSHError) -> SecretBytes {
        switch result {
        case .found(let secret) where !secret.isEmpty: return secret
        case .found, .notStored: throw notSynced()
        case .locked:
            throw SSHError(
                .credentialUnavailable, "the \(what) is in the vault, which is locked",
                guidance: Self.giveThePassphrase)
        case .unavailable(let reason, let hint):
            throw SSHError(.credentialUnavailable, "the \(what) cannot be read: \(reason)", guidance: hint)
        }
    }
}

/// Private key files named by an identity's `keyFile`: read into guarded memory once, never written anywhere.
/// Only a plain file is read (a FIFO there would block the login forever).
enum KeyFile {
    /// `~/` spelt out with HOME (the user's, as every path sshelf reads).
    static func expanded(_ path: String, environment: [String: String]) -> String {
        guard path.hasPrefix("~/") else { return path }
        let home =
            environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? FileManager.default.homeDirectoryForCurrentUser.path
        return home + String(path.dropFirst(1))
    }

    static func exists(_ path: String, environment: [String: String]) -> Bool {
        access(expanded(path, environment: environment), F_OK) == 0
    }

    static func read(_ path: String, environment: [String: String] = [:]) throws(SSHError) -> SecretBytes {
        let expanded = expanded(path, environment: environment)
        do {
            return try RegularFile.readSecret(expanded)
        } catch {
            throw SSHError(
                .credentialUnavailable, "cannot use the key file: \(error)",
                hint: "a private key is a plain file of at most 1 MiB; fix the identity's key file or import the key")
        }
    }
}
