// AgentService: what the sshelf agent answers — the identities in the vault listed, signatures made (confirmed
// when the key asks for it, logged in the release log first; a host-bound key only where the connection's
// session-binds allow it, AgentKeyBindings), keys from ssh-add stored in the vault and the store,
// keys removed from the agent (never from the vault), lock and unlock. One instance serves every connection; its
// state sits behind one lock, and no lock is held while a question waits for an answer.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfOperations
import ShelfStore
import ShelfVault

public final class AgentService: @unchecked Sendable {
    /// An identity the agent can serve: its record and what is listed for it — its public key, or a certificate of
    /// that key a CA in the vault issued (AgentCertificates).
    struct Served {
        var identity: Identity
        /// What the agent lists and a sign request names: `keyBlob`, or the certificate's blob.
        var blob: [UInt8]
        var label: String
        /// The identity's public key blob, which signs.
        var keyBlob: [UInt8]
        var fingerprint: String { SSHPublicKey.fingerprint(keyBlob) }
    }

    /// What ssh-add asked for a key in this agent's lifetime (`-c`, `-t`).
    private struct Added {
        var confirm: Bool
        var lifetime: Int?
    }

    private let context: AppContext
    private let confirmation: AgentConfirmation
    /// Asks for the vault passphrase on the foreground agent's terminal; nil in the background.
    private let askPassphrase: ((String) -> SecretBytes?)?
    /// A line for the agent's log (its stderr: the terminal, or agent.log in the background). Never a secret.
    let report: @Sendable (String) -> Void
    private let releaseLog: ReleaseLog
    let started = Date()

    private let lock = Lock()
    private var openedStore: Store?
    private var openedVault: Vault?
    /// Removed with ssh-add -d / -D: not served until added again (the vault keeps them).
    private var hidden: Set<UUID> = []
    private var added: [UUID: Added] = [:]
    /// When the agent first served each identity: lifetimes count from here.
    private var servingSince: [UUID: ContinuousClock.Instant] = [:]
    private var agentLock: AgentLockHash?
    private let unlockBackoff: UnlockBackoff
    /// Keys left out of the list because the vault session cannot open them now (logged when this changes).
    private var lockedOut: Set<UUID> = []

    public init(
        context: AppContext, confirmation: AgentConfirmation, askPassphrase: ((String) -> SecretBytes?)?,
        report: @escaping @Sendable (String) -> Void, unlockBackoff: UnlockBackoff = UnlockBackoff()
    ) {
        self.context = context
        self.unlockBackoff = unlockBackoff
        self.confirmation = confirmation
        self.askPassphrase = askPassphrase
        self.report = report
        releaseLog = ReleaseLog(locations: context.locations)
    }

    // MARK: dispatch

    /// The reply body to one request body. `message` is the guarded buffer the request was read into.
    func handle(_ message: SecretBytes, on connection: AgentConnection) -> [UInt8] {
        let decoded = message.withUnsafeBytes { AgentProtocol.decode($0) }
        let who = connection.who
        let request: AgentRequest
        switch decoded {
        case .success(let parsed): request = parsed
        case .failure(let error):
            report("refused a request from \(who): \(error)")
            return AgentProtocol.status(false)
        }
        if isLocked {
            // A locked agent lists nothing and refuses everything but unlocking, as OpenSSH's does.
            switch request {
            case .requestIdentities: return AgentProtocol.identitiesAnswer([])
            case .unlock, .extension: break
            default: return AgentProtocol.status(false)
            }
        }
        switch request {
        case .requestIdentities:
            return AgentProtocol.identitiesAnswer(
                listed(on: connection).map { (blob: $0.blob, comment: $0.identity.name) })
        case .sign(let blob, let data, let flags):
            return sign(blob: blob, data: data, flags: flags, on: connection)
        case .add(let add):
            return AgentProtocol.status(self.add(add, message: message, who: who))
        case .remove(let blob):
            return AgentProtocol.status(remove(blob: blob, who: who))
        case .removeAll:
            let all = served()
            withLock { for item in all { hide(item.identity.id) } }
            report("\(who) removed all \(all.count) key(s) from the agent (the vault keeps them)")
            return AgentProtocol.status(true)
        case .lock(let range):
            return AgentProtocol.status(
                message.withUnsafeBytes { lockAgent(UnsafeRawBufferPointer(rebasing: $0[range]), who: who) })
        case .unlock(let range):
            return AgentProtocol.status(
                message.withUnsafeBytes { unlock(UnsafeRawBufferPointer(rebasing: $0[range]), who: who) })
        case .extension(let name, _) where name == AgentStatus.extensionName:
            return [AgentMessage.success] + SSHWire.string(Array(status().encoded.utf8))
        case .extension(let name, let contents) where name == AgentKeyState.extensionName:
            let host = message.withUnsafeBytes { bytes -> String? in
                var reader = SSHWireReader(UnsafeRawBufferPointer(rebasing: bytes[contents]))
                return reader.text(limit: 1024)
            }
            return [AgentMessage.success] + SSHWire.string(keyState(forHost: host ?? "").encoded)
        case .extension(let name, let contents) where name == AgentSessionBind.extensionName:
            let bind = message.withUnsafeBytes {
                AgentSessionBind.decode(UnsafeRawBufferPointer(rebasing: $0[contents]))
            }
            guard let bind else {
                report("refused a malformed session binding from \(who)")
                return AgentProtocol.extensionStatus(false)
            }
            if case .refused(let reason) = connection.bind(bind) {
                report("refused a session binding from \(who): \(reason); its host-bound keys are refused from now on")
                return AgentProtocol.extensionStatus(false)
            }
            return AgentProtocol.extensionStatus(true)
        case .extension:
            // query and any other extension: OpenSSH's clients carry on after a failure.
            return AgentProtocol.status(false)
        case .smartcard:
            report("refused a PKCS#11 request from \(who): this agent serves the keys in the vault only")
            return AgentProtocol.status(false)
        case .unknown(let type):
            report("refused an unknown request (\(type)) from \(who)")
            return AgentProtocol.status(false)
        }
    }

    private func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    private var isLocked: Bool { withLock { agentLock != nil } }

    private func hide(_ id: UUID) {
        hidden.insert(id)
        added[id] = nil
        servingSince[id] = nil
    }

    // MARK: the store and the vault

    private func store() throws -> Store {
        if let openedStore { return openedStore }
        do {
            let store = try context.workspace.openStore()
            openedStore = store
            return store
        } catch {
            throw ShelfError(.storage, error.message, hint: error.hint)
        }
    }

    /// The vault, opened once so a passphrase given to this agent keeps whenUnlocked items open (until idle).
    private func vault(create: Bool) -> Vault? {
        if let vault = withLock({ openedVault }) { return vault }
        guard let vault = try? VaultAccess.open(context.workspace, create: create) else { return nil }
        return withLock {
            if openedVault == nil { openedVault = vault }
            return openedVault
        }
    }

    /// The identities served now: a private key in the vault, a public key in the store of a type this agent
    /// signs with, not removed with ssh-add -d, and within its lifetime. One entry per key, with the stricter
    /// options of every identity holding it (IdentityKeys.onePerKey). An agent nobody can type into lists only keys
    /// the vault session opens now (so ssh never offers a key the agent would refuse), and logs what it left out.
    func served() -> [Served] {
        let vault = vault(create: false)
        let stored = Dictionary(((try? vault?.items()) ?? []).map { ($0.key, $0.knownClass) }) { first, _ in first }
        var readable: [AccessibilityClass: Bool] = [:]
        func opens(_ accessibility: AccessibilityClass?) -> Bool {
            guard askPassphrase == nil, let vault else { return true }
            guard let accessibility else { return false }
            if let known = readable[accessibility] { return known }
            let now = vault.canRead(accessibility)
            readable[accessibility] = now
            return now
        }
        let now = ContinuousClock.now
        let (result, left) = withLock { () -> ([Served], [Identity]) in
            guard let identities = try? store().identities() else { return ([], []) }
            var result: [Served] = []
            var left: [Identity] = []
            let inVault = identities.filter { $0.privateKeyRef.map { stored[$0.rawValue] != nil } ?? false }
            for identity in IdentityKeys.onePerKey(inVault) {
                guard let reference = identity.privateKeyRef, let accessibility = stored[reference.rawValue],
                    !hidden.contains(identity.id), let blob = SSHPublicKey.blob(fromLine: identity.publicKey),
                    let algorithm = SSHPublicKey.algorithm(of: blob)
                else { continue }
                guard opens(accessibility) else {
                    left.append(identity)
                    continue
                }
                let since = servingSince[identity.id] ?? now
                servingSince[identity.id] = since
                if let lifetime = lifetime(of: identity), now - since >= .seconds(lifetime) {
                    hide(identity.id)
                    report(
                        "the lifetime of key '\(Display.safe(identity.name))' (\(lifetime) s) ended; "
                            + "it is no longer served"
                    )
                    continue
                }
                result.append(Served(identity: identity, blob: blob, label: algorithm.label, keyBlob: blob))
            }
            return (result, left)
        }
        noteLockedOut(left, keyring: vault?.session().shared == true)
        return result
    }

    /// Logs, once per change, which keys are not listed because the vault session is locked, and the fix that
    /// reaches this agent: where no kernel keyring shares an unlock between processes, `vault unlock` opens only its
    /// own process, so the passphrase has to be handed to the agent itself.
    private func noteLockedOut(_ left: [Identity], keyring: Bool) {
        let ids = Set(left.map(\.id))
        let changed = withLock { () -> Bool in
            defer { lockedOut = ids }
            return ids != lockedOut
        }
        guard changed else { return }
        if left.isEmpty {
            report("the vault session is open: every key is listed again")
        } else {
            let names = left.map { "'\(Display.safe($0.name))'" }.joined(separator: ", ")
            report(
                "not listing \(names): the vault is locked for their class; "
                    + (keyring
                        ? "run 'sshelf vault unlock' (or 'sshelf agent start --unlock') to serve them"
                        : "run 'sshelf agent start --unlock' (or 'ssh-add -X') to serve them: this system keeps no "
                            + "unlock between processes (no kernel keyring), so 'sshelf vault unlock' does not reach "
                            + "the agent"))
        }
    }

    /// The shorter of the identity's own lifetime and the one ssh-add gave it, if any.
    private func lifetime(of identity: Identity) -> Int? {
        let own = identity.agentLifetime > 0 ? identity.agentLifetime : nil
        let fromAdd = added[identity.id]?.lifetime
        switch (own, fromAdd) {
        case (let a?, let b?): return min(a, b)
        case (let a?, nil): return a
        case (nil, let b?): return b
        case (nil, nil): return nil
        }
    }

    // MARK: certificates

    /// The certificates listed for `keys` whose identity a CA in the vault keeps fresh, renewed first where due.
    private func certificates(of keys: [Served], for who: String) -> [Served] {
        let tied = withLock { () -> Set<UUID> in
            let authorities = (try? CertificateAuthorities.all(in: store())) ?? []
            return Set(authorities.flatMap { $0.tied.map(\.identityID) })
        }
        guard !tied.isEmpty else { return [] }
        let certificates = AgentCertificates(
            workspace: context.workspace, environment: context.environment, askPassphrase: askPassphrase,
            report: report)
        return certificates.listed(keys.filter { tied.contains($0.identity.id) }, for: who)
    }

    /// The served key a sign request names: its public key, or a user certificate of it (the certificate is inside
    /// the data signed, where the server checks it; the key's own rules — confirmation, host binding — apply as
    /// for the key).
    private func servedItem(named blob: [UInt8]) -> Served? {
        let keys = served()
        if let item = keys.first(where: { $0.blob == blob }) { return item }
        guard let certificate = SSHCertificate(blob: blob), certificate.kind == .user,
            var item = keys.first(where: { $0.keyBlob == certificate.publicKeyBlob })
        else { return nil }
        item.blob = blob
        return item
    }

    // MARK: host-bound keys

    /// The host-bound keys as the store has them now (an unreadable store binds nothing and serves nothing).
    private func keyBindings() -> AgentKeyBindings {
        withLock {
            let read = try? store().read { store in (try store.identities(), try store.hosts(), try store.groups()) }
            return AgentKeyBindings(identities: read?.0 ?? [], hosts: read?.1 ?? [], groups: read?.2 ?? [])
        }
    }

    /// The keys listed to this connection, each certificate a CA keeps fresh before its key: a host-bound key only
    /// where every server the connection is bound to is one of its hosts (all of them where it is bound to none:
    /// ssh-add -l on this machine).
    private func listed(on connection: AgentConnection) -> [Served] {
        let plain = served()
        let keys = certificates(of: plain, for: connection.who) + plain
        guard keys.contains(where: { !$0.identity.onlyTo.isEmpty }) || !connection.bindings.hops.isEmpty else {
            return keys
        }
        let bindings = keyBindings()
        return keys.filter { item in
            guard let refusal = bindings.listRefusal(item.keyBlob, on: connection.bindings) else { return true }
            report(
                "not offering host-bound key '\(Display.safe(item.identity.name))' to \(connection.who): "
                    + bindings.describe(refusal, key: item.keyBlob))
            return false
        }
    }

    /// Refuses a host-bound key's signature the connection's bindings do not allow: a line in the agent's log and
    /// one in the release log, naming the host asked for. Nil when the signature may go ahead.
    private func boundRefusal(_ item: Served, data: [UInt8], on connection: AgentConnection) -> [UInt8]? {
        let bindings = keyBindings()
        guard let refusal = bindings.refusal(item.keyBlob, offered: item.blob, signing: data, on: connection.bindings)
        else { return nil }
        let name = "'\(Display.safe(item.identity.name))'"
        let reason = bindings.describe(refusal, key: item.keyBlob)
        report("refused to sign with host-bound key \(name) for \(connection.who): \(reason)")
        if let vault = vault(create: false) {
            let record = ReleaseEntry(
                what: "refused signature", item: ReferenceKey.identityPrivateKey(item.identity.id).rawValue,
                by: "agent", host: bindings.askedFor(connection.bindings), process: connection.who,
                detail: "identity \(name), \(item.fingerprint): \(reason)")
            do {
                try vault.record(record, log: releaseLog)
            } catch {
                report("the refusal could not be written to the release log: \(error.message)")
            }
        }
        return AgentProtocol.status(false)
    }

    // MARK: signing

    private func sign(blob: [UInt8], data: [UInt8], flags: UInt32, on connection: AgentConnection) -> [UInt8] {
        let who = connection.who
        // The host key of the server the signature is for, when the client bound its session to it.
        let server = connection.server(for: data)
        guard let item = servedItem(named: blob) else {
            let locked = withLock { () -> String? in
                let identities = (try? store().identities()) ?? []
                return identities.first {
                    lockedOut.contains($0.id) && SSHPublicKey.blob(fromLine: $0.publicKey) == blob
                }?.name
            }
            if let locked {
                report(
                    "refused to sign with key '\(Display.safe(locked))' for \(who): the vault is locked for its "
                        + "class; run 'sshelf vault unlock'")
                return AgentProtocol.status(false)
            }
            report("refused to sign for \(who): the key \(SSHPublicKey.fingerprint(blob)) is not one this agent serves")
            return AgentProtocol.status(false)
        }
        if let refused = boundRefusal(item, data: data, on: connection) { return refused }
        let name = "'\(Display.safe(item.identity.name))'"
        let mustConfirm = item.identity.confirmEachUse || withLock { added[item.identity.id]?.confirm == true }
        if mustConfirm {
            let question = "sshelf agent: allow \(who) to sign with key \(name) (\(item.label) \(item.fingerprint))?"
            switch confirmation.ask(question) {
            case .allowed(let by): report("\(by) allowed \(who) to use key \(name)")
            case .refused(let reason):
                report("refused to sign with key \(name) for \(who): \(reason)")
                return AgentProtocol.status(false)
            }
        }
        guard let key = signingKey(item, who: who) else { return AgentProtocol.status(false) }
        guard key.publicBlob == item.keyBlob else {
            report(
                "refused to sign with key \(name): the private key in the vault is not the public key in the store "
                    + "(\(item.fingerprint)); re-import it"
            )
            return AgentProtocol.status(false)
        }
        let signature: (algorithm: String, blob: [UInt8])
        switch key.sign(data, flags: flags) {
        case .success(let made): signature = made
        case .failure(.rsaSHA1Refused):
            report(
                "refused an ssh-rsa (SHA-1) signature with RSA key \(name) for \(who): this agent signs RSA only with "
                    + "rsa-sha2-256/512"
            )
            return AgentProtocol.status(false)
        case .failure(.failed(let reason)):
            report("could not sign with key \(name) for \(who): \(reason)")
            return AgentProtocol.status(false)
        }
        guard let vault = vault(create: false) else { return AgentProtocol.status(false) }
        let hosts = server.map(hostNames(pinnedWith:)) ?? []
        let record = ReleaseEntry(
            what: "signature", item: ReferenceKey.identityPrivateKey(item.identity.id).rawValue,
            by: "agent", host: hosts.isEmpty ? nil : hosts.joined(separator: ", "), process: who,
            detail: "identity \(name), \(signature.algorithm) \(item.fingerprint)"
                + (server.map { ", server key \(SSHPublicKey.fingerprint($0))" } ?? ""))
        let released: [UInt8]
        do {
            released = try vault.release(signature.blob, logging: record, log: releaseLog)
        } catch {
            report(
                "refused to sign with key \(name) for \(who): the release log could not be written: \(error.message)")
            return AgentProtocol.status(false)
        }
        report(
            "signed with key \(name) (\(signature.algorithm)) for \(who)"
                + (hosts.isEmpty ? "" : " to log in to " + hosts.map(Display.safe).joined(separator: ", ")))
        return AgentProtocol.signResponse(released)
    }

    /// The hosts whose pinned host key is `hostKey` (what the client's session-bind named).
    private func hostNames(pinnedWith hostKey: [UInt8]) -> [String] {
        guard let type = SSHPublicKey.typeName(of: hostKey) else { return [] }
        let key = Data(hostKey).base64EncodedString()
        return withLock {
            ((try? store().hosts()) ?? []).filter { $0.pinnedHostKey?.type == type && $0.pinnedHostKey?.key == key }
                .map(\.name)
        }
    }

    /// The identity's key from the vault. A locked class is asked for on the terminal of a foreground agent, and
    /// refused (with the reason in the log) otherwise.
    private func signingKey(_ item: Served, who: String) -> SSHPrivateKey? {
        let name = "'\(Display.safe(item.identity.name))'"
        guard let vault = vault(create: false) else {
            report("refused to sign with key \(name) for \(who): the vault cannot be opened")
            return nil
        }
        var asked = false
        var keyPassphrase: SecretBytes? = nil
        while true {
            switch vault.signingKey(identityID: item.identity.id, keyPassphrase: keyPassphrase) {
            case .key(let key):
                return key
            case .needsKeyPassphrase:
                guard keyPassphrase == nil, let askPassphrase else {
                    report(
                        "refused to sign with key \(name) for \(who): "
                            + (keyPassphrase == nil
                                ? "the key file is encrypted and its passphrase is not in the vault (import it again "
                                    + "with its passphrase, or run the agent in the foreground to be asked)"
                                : "the key's passphrase did not open it"))
                    return nil
                }
                guard let typed = askPassphrase("Passphrase of key \(name) (for \(who)): ") else { return nil }
                keyPassphrase = typed
            case .notStored:
                report("refused to sign with key \(name) for \(who): its private key is not in this device's vault")
                return nil
            case .unusable(let reason):
                report("refused to sign with key \(name) for \(who): \(reason)")
                return nil
            case .locked(let accessibility):
                guard !asked, let askPassphrase else {
                    let fix = "run 'sshelf vault unlock' (or 'sshelf agent start --unlock', 'ssh-add -X')"
                    report(
                        "refused to sign with key \(name) for \(who): the vault is locked for its class "
                            + "(\(accessibility)); \(fix)"
                    )
                    return nil
                }
                asked = true
                guard let passphrase = askPassphrase("Vault passphrase (key \(name) for \(who)): ") else { return nil }
                do {
                    try vault.unlock(passphrase: passphrase)
                } catch {
                    report("refused to sign with key \(name) for \(who): \(error.message)")
                    return nil
                }
            }
        }
    }

    // MARK: ssh-add

    /// Stores a key from ssh-add in the vault (class by the usual policy) and, when no identity has it yet, creates
    /// one named after the key's comment. A key sshelf already has is served again with the constraints given.
    private func add(_ request: AgentAddRequest, message: SecretBytes, who: String) -> Bool {
        let parsed = message.withUnsafeBytes { bytes in
            SSHPrivateKey.fromAgent(
                keyType: request.keyType, fields: UnsafeRawBufferPointer(rebasing: bytes[request.fields]),
                comment: request.comment)
        }
        let key: SSHPrivateKey
        switch parsed {
        case .success(let made): key = made
        case .failure(let problem):
            report("refused a key from \(who): \(problem.message)")
            return false
        }
        guard let vault = vault(create: true) else {
            report("refused a key from \(who): the vault cannot be opened or created (see 'sshelf vault status')")
            return false
        }
        let lifetime = request.lifetime.map { Int(min($0, UInt32(Validation.maximumAgentLifetime))) }
        do {
            let store = try withLock { try self.store() }
            // The one import (ShelfOperations): the check for an identity holding the key and the write are one
            // store transaction, so another process importing the same key at once finds this one's identity.
            let imported = try IdentityOperations.importKey(
                KeyToImport(key), as: .agentKey(comment: key.comment), vault: vault, store: store,
                unlock: { classes in try self.unlockToStore(vault, classes: classes, who: who) },
                adjust: { identity in
                    identity.confirmEachUse = request.confirm
                    identity.agentLifetime = lifetime ?? 0
                })
            let identity = imported.identity
            withLock {
                hidden.remove(identity.id)
                servingSince[identity.id] = ContinuousClock.now
                added[identity.id] = Added(confirm: request.confirm, lifetime: lifetime)
            }
            let what =
                imported.created
                ? "stored a new identity"
                : imported.alreadyStored ? "serves again identity" : "stored the key of identity"
            report(
                "\(what) '\(Display.safe(identity.name))' (\(key.algorithm.label) \(key.fingerprint)) from \(who)"
                    + (request.confirm ? ", confirm each use" : "") + (lifetime.map { ", lifetime \($0) s" } ?? ""))
            return true
        } catch let refused as AgentAddRefused {
            report("refused a key from \(who): \(refused.reason)")
            return false
        } catch let error as VaultError {
            report("refused a key from \(who): \(error.message)")
            return false
        } catch {
            report("refused a key from \(who): \(error)")
            return false
        }
    }

    /// Why an ssh-add was refused, in the agent log's words.
    private struct AgentAddRefused: Error { var reason: String }

    /// The vault is locked for a class the key needs: a foreground agent asks for the passphrase once; a
    /// background one refuses, saying how to give it.
    private func unlockToStore(_ vault: Vault, classes: Set<AccessibilityClass>, who: String) throws {
        let names = classes.map(\.rawValue).sorted().joined(separator: ", ")
        guard let askPassphrase else {
            throw AgentAddRefused(
                reason: "the vault is locked for \(names); give this agent the vault passphrase ('ssh-add -X') or "
                    + "run it in the foreground")
        }
        guard let passphrase = askPassphrase("Vault passphrase (to store a key from \(who)): "),
            (try? vault.unlock(passphrase: passphrase)) != nil
        else {
            throw AgentAddRefused(reason: "the vault stayed locked")
        }
    }

    private func remove(blob: [UInt8], who: String) -> Bool {
        guard let item = served().first(where: { $0.blob == blob }) else { return false }
        withLock { hide(item.identity.id) }
        report(
            "\(who) removed key '\(Display.safe(item.identity.name))' from the agent (the vault keeps it; 'sshelf "
                + "identity rm' deletes it)"
        )
        return true
    }

    // MARK: lock and unlock

    private func lockAgent(_ passphrase: UnsafeRawBufferPointer, who: String) -> Bool {
        guard !passphrase.isEmpty, !isLocked, let hash = AgentLockHash.make(passphrase) else { return false }
        withLock { agentLock = hash }
        report("\(who) locked the agent")
        return true
    }

    /// Unlocks a locked agent; on an agent that is not locked, the passphrase is tried as the vault passphrase, so
    /// `ssh-add -X` unlocks the vault session (every sshelf process's, this agent's included). Tries take turns and
    /// wait out the back-off of the wrong ones before them (UnlockBackoff).
    private func unlock(_ passphrase: UnsafeRawBufferPointer, who: String) -> Bool {
        guard isLocked || vault(create: false)?.hasPassphrase == true else { return false }
        var what = "agent"
        var problem: String? = nil
        let outcome = unlockBackoff.attempt {
            if let hash = withLock({ agentLock }) {
                guard hash.matches(passphrase) else { return false }
                withLock { agentLock = nil }
                return true
            }
            what = "vault"
            guard let vault = vault(create: false) else { return false }
            do {
                try vault.unlock(passphrase: SecretBytes(copying: passphrase))
                return true
            } catch {
                problem = ShelfError(from: error).message
                return false
            }
        }
        let waited = outcome.waited > .zero ? " (after waiting \(Self.seconds(outcome.waited)) s)" : ""
        if outcome.accepted {
            report(
                "\(who) unlocked "
                    + (what == "agent" ? "the agent" : "the vault session (for every sshelf process of this user)")
                    + waited)
        } else {
            report(
                "\(who) gave a wrong \(what) passphrase to unlock\(waited)" + (problem.map { " (\($0))" } ?? "")
                    + "; \(outcome.failures) wrong in a row, the next try waits \(Self.seconds(outcome.next)) s")
        }
        return outcome.accepted
    }

    private static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return attoseconds == 0
            ? "\(seconds)" : TextFormat.fixed(Double(seconds) + Double(attoseconds) / 1e18, places: 1)
    }

    // MARK: the bridge's unlock guard

    /// Whether the key host `name` (its name or an alias, as typed; case ignored as ssh's patterns do) logs in with
    /// can be signed with now. A foreground agent asks on its own terminal, so nothing is locked for it.
    func keyState(forHost name: String) -> AgentKeyState {
        if isLocked { return AgentKeyState(state: .agentLocked) }
        let wanted = name.lowercased()
        let identity = withLock { () -> Identity? in
            guard let (hosts, identities) = try? store().read({ (try $0.hosts(), try $0.identities()) }) else {
                return nil
            }
            let host =
                hosts.first { $0.name.lowercased() == wanted }
                ?? hosts.first { $0.aliases.contains { $0.lowercased() == wanted } }
            guard let id = host?.identityID else { return nil }
            return identities.first { $0.id == id }
        }
        guard let identity, let reference = identity.privateKeyRef, askPassphrase == nil,
            let vault = vault(create: false), let accessibility = try? vault.storedClass(of: reference)
        else { return AgentKeyState(state: .open, key: identity?.name) }
        guard !vault.canRead(accessibility) else { return AgentKeyState(state: .open, key: identity.name) }
        return AgentKeyState(state: .locked, key: identity.name, accessibility: accessibility.rawValue)
    }

    // MARK: status

    func status() -> AgentStatus {
        let keys = served()
        let vault = vault(create: false)
        let vaultState: String
        var lockedKeys: [String] = []
        var sharedUnlock: Bool?
        if let vault {
            let session = vault.session()
            sharedUnlock = session.shared
            vaultState = session.state == .noPassphrase ? "no passphrase" : "passphrase set, session \(session.summary)"
            // Keys left out of the list, and (a foreground agent lists all) served keys whose class is locked now.
            lockedKeys = withLock {
                ((try? store().identities()) ?? []).filter { lockedOut.contains($0.id) }.map(\.name)
            }
            let states = Dictionary(((try? vault.status().classes) ?? []).map { ($0.accessibility, $0.state) }) {
                a, _ in a
            }
            for item in keys {
                guard let reference = item.identity.privateKeyRef,
                    let stored = try? vault.storedClass(of: reference), states[stored.rawValue] == "locked"
                else { continue }
                lockedKeys.append(item.identity.name)
            }
        } else {
            vaultState = "none on this device"
        }
        return AgentStatus(
            pid: Int(getpid()), socket: context.locations.agentSocket, keys: keys.map(\.identity.name),
            lockedKeys: lockedKeys, locked: isLocked, vault: vaultState, sharedUnlock: sharedUnlock,
            confirm: confirmation.channel,
            confirmTimeout: confirmation.timeoutSeconds, started: started)
    }
}
