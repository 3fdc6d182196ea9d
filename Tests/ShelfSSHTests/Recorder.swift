// Recorder: a scripted ConnectDelegate and an instrumented CredentialSource that write into one shared journal,
// so tests can assert the order of host-key verification and credential lookups. The sshd stays real.
import Foundation
import ShelfCore
import ShelfSSH
import TestSupport

final class Journal: @unchecked Sendable {
    private(set) var entries: [String] = []
    func add(_ entry: String) { entries.append(entry) }
    func index(of prefix: String) -> Int? { entries.firstIndex { $0.hasPrefix(prefix) } }
}

final class RecordingDelegate: ConnectDelegate {
    let journal: Journal
    var hostKeyDecision: HostKeyDecision = .refuse
    var questions: [HostKeyQuestion] = []
    var passwords: [String] = []
    var rememberPassword = false
    var passwordRequests: [PasswordRequest] = []
    var keyboardAnswers: [[String]] = []
    var keyPassphrase: String? = nil
    var challenges: [KeyboardChallenge] = []

    init(journal: Journal) { self.journal = journal }

    func decide(_ question: HostKeyQuestion) -> HostKeyDecision {
        journal.add("decide \(question.reason)")
        questions.append(question)
        return hostKeyDecision
    }

    func askPassword(_ request: PasswordRequest) -> PasswordAnswer? {
        journal.add("askPassword \(request.attempt)")
        passwordRequests.append(request)
        guard !passwords.isEmpty else { return nil }
        var bytes = Array(passwords.removeFirst().utf8)
        return PasswordAnswer(password: SecretBytes.take(&bytes), remember: rememberPassword)
    }

    func askKeyPassphrase(_ request: KeyPassphraseRequest) -> SecretBytes? {
        journal.add("askKeyPassphrase")
        guard var bytes = keyPassphrase.map({ Array($0.utf8) }) else { return nil }
        return SecretBytes.take(&bytes)
    }

    func answer(_ challenge: KeyboardChallenge) -> [SecretBytes]? {
        journal.add("keyboard \(challenge.prompts.count)")
        challenges.append(challenge)
        guard !keyboardAnswers.isEmpty else { return nil }
        return keyboardAnswers.removeFirst().map { text in
            var bytes = Array(text.utf8)
            return SecretBytes.take(&bytes)
        }
    }

    func note(_ event: ConnectEvent) {
        if case .hostKeyVerified(let hop, _, _) = event { journal.add("verified \(hop)") }
        if case .banner(let hop, let text) = event { journal.add("banner \(hop): \(text)") }
    }
}

/// Holds secrets by reference key; records every lookup in the journal, with the verified hop it came with.
final class RecordingSource: CredentialSource {
    let journal: Journal
    var items: [String: [UInt8]] = [:]
    var remembered: [UUID: [UInt8]] = [:]
    var canRemember = true
    /// Each lookup's reference and the hop name and host-key fingerprint of the VerifiedSession it carried.
    var lookups: [(reference: String, hop: String, fingerprint: String)] = []

    init(journal: Journal) { self.journal = journal }

    private func lookup(_ kind: String, _ reference: ReferenceKey, _ hop: VerifiedSession) -> CredentialLookup {
        journal.add("lookup \(kind) \(reference.rawValue)")
        lookups.append((reference.rawValue, hop.hop.name, hop.hostKey.fingerprint))
        guard var bytes = items[reference.rawValue] else { return .notStored }
        return .found(SecretBytes.take(&bytes))
    }

    func privateKey(for reference: ReferenceKey, on hop: VerifiedSession) -> CredentialLookup {
        lookup("privkey", reference, hop)
    }
    func keyPassphrase(for reference: ReferenceKey, on hop: VerifiedSession) -> CredentialLookup {
        lookup("passphrase", reference, hop)
    }
    func password(for reference: ReferenceKey, on hop: VerifiedSession) -> CredentialLookup {
        lookup("password", reference, hop)
    }

    func rememberPassword(_ password: SecretBytes, forHost hostID: UUID, on hop: VerifiedSession) -> ReferenceKey? {
        journal.add("remember \(hostID)")
        remembered[hostID] = password.withUnsafeBytes { [UInt8]($0) }
        return .hostPassword(hostID)
    }
}

/// One test's world: a temp directory for sshelf's known_hosts and a fake ~/.ssh/known_hosts.
final class SSHWorld {
    let directory: String
    let journal = Journal()
    let delegate: RecordingDelegate
    let source: RecordingSource
    var agentSocket: String? = nil

    init() {
        directory =
            (ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp") + "/sshelf-world-" + UUID().uuidString.prefix(8)
        try? FileManager.default.createDirectory(atPath: directory + "/ssh", withIntermediateDirectories: true)
        delegate = RecordingDelegate(journal: journal)
        source = RecordingSource(journal: journal)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    var ownKnownHosts: String { directory + "/data/known_hosts" }
    var userKnownHosts: String { directory + "/ssh/known_hosts" }
    var trust: HostKeyTrustStore {
        HostKeyTrustStore(ownKnownHostsPath: ownKnownHosts, userKnownHostsPath: userKnownHosts)
    }

    /// A libssh2 wait is a safety net here, not what a test checks (the timeout tests set their own): under a loaded
    /// machine sshd can take seconds to answer one userauth request, so the net is the standard deadline.
    var connector: SSHConnector {
        SSHConnector(
            options: ConnectOptions(
                trust: trust, connectTimeout: Deadline.scaled(Deadline.standard), agentSocket: agentSocket),
            credentials: source, delegate: delegate)
    }

    func endpoint(
        _ sshd: SSHD, name: String = "target", user: String = TestAccount.name, auth: AuthMethod = .auto,
        identity: Identity? = nil, passwordRef: ReferenceKey? = nil, pinned: PinnedHostKey? = nil
    ) -> SSHEndpoint {
        SSHEndpoint(
            name: name, hostID: UUID(), hostname: sshd.options.listenAddress, port: sshd.port, user: user,
            authMethod: auth, identity: identity, passwordRef: passwordRef, pinnedHostKey: pinned)
    }

    /// Pins the server's ed25519 key so host-key checks pass without a question.
    func pin(_ sshd: SSHD, _ type: SSHD.KeyType = .ed25519) -> PinnedHostKey {
        let parts = sshd.hostPublicKey(type).split(separator: " ").map(String.init)
        return PinnedHostKey(type: parts[0], key: parts[1])
    }

    /// An identity whose private key is in the recording source under its reference.
    func vaultIdentity(_ key: TestKey, type: KeyType) -> Identity {
        let identity = Identity(name: "test-\(type.rawValue)", keyType: type, publicKey: key.publicLine)
        var withRef = identity
        withRef.privateKeyRef = .identityPrivateKey(identity.id)
        source.items[ReferenceKey.identityPrivateKey(identity.id).rawValue] = key.privateBytes
        return withRef
    }

    /// The fixture most ShelfSSH suites start from: a real sshd that takes one new ed25519 key, and a connection to
    /// it as the test account, its host key pinned and the key's private half in the vault.
    static func connectedToNewServer() throws -> (sshd: SSHD, world: SSHWorld, connection: SSHConnection) {
        try TestAccount.ensure()
        let key = try TestKey.generate(.ed25519)
        var options = SSHD.Options()
        options.authorizedKeys = [key.publicLine]
        let sshd = try SSHD.start(options)
        let world = SSHWorld()
        do {
            let connection = try world.connector.connect([
                world.endpoint(sshd, identity: world.vaultIdentity(key, type: .ed25519), pinned: world.pin(sshd))
            ])
            return (sshd, world, connection)
        } catch {
            sshd.stop()
            throw error
        }
    }

    /// Ends what `connectedToNewServer` started, from a suite's tearDown (XCTest keeps test-case objects alive until
    /// the run ends, so a deinit would be too late): the connection closed, the server stopped, all three let go.
    static func end(_ connection: inout SSHConnection?, _ sshd: inout SSHD?, _ world: inout SSHWorld?) {
        connection?.close()
        connection = nil
        sshd?.stop()
        sshd = nil
        world = nil
    }

    /// Runs a command over an established connection and returns (status, stdout, stderr).
    static func run(_ connection: SSHConnection, _ command: String) throws -> (RemoteExit, [UInt8], [UInt8]) {
        var out: [UInt8] = [], err: [UInt8] = []
        let status = try connection.exec(command, stdout: { out += $0 }, stderr: { err += $0 })
        return (status, out, err)
    }
}
