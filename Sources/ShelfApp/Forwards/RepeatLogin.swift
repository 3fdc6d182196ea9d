// RepeatLogin: logs in a forward's extra sessions (`sessions N`) without asking the user again. The first login's
// prompts are passed through and their outcome kept in memory: the host keys the user accepted, and the password
// or key passphrase that logged in on each hop. The extra logins accept only those exact keys (any other key is
// refused, never asked about) and give those same answers once; nothing is pinned or stored twice, and the kept
// answers are zeroed when this object goes.
import FoundationEssentials
import ShelfSSH

final class RepeatLogin {
    private var acceptedKeys: [String: [UInt8]] = [:]
    private var passwords: [String: SecretBytes] = [:]
    private var passphrases: [String: SecretBytes] = [:]

    /// The first login's delegate: `inner` answers, this remembers.
    func recording(_ inner: ConnectDelegate) -> ConnectDelegate { Recording(inner: inner, memory: self) }

    /// The extra logins' delegate: answers from memory, asks nobody.
    func replaying() -> ConnectDelegate { Replaying(memory: self) }

    /// Opens `count` more logged-in connections through the same hops with the remembered answers; a failure names
    /// the session and closes the ones already open.
    func connectMore(
        _ count: Int, to endpoints: [SSHEndpoint], options: ConnectOptions, credentials: CredentialSource
    ) throws(SSHError) -> [SSHConnection] {
        var made: [SSHConnection] = []
        let connector = SSHConnector(options: options, credentials: credentials, delegate: replaying())
        for index in 0..<max(0, count) {
            do {
                made.append(try connector.connect(endpoints))
            } catch {
                for connection in made { connection.close() }
                throw SSHError(
                    error.kind, "session \(index + 2) of \(count + 1): \(error.message)", library: error.libraryMessage,
                    hint: error.hint
                        ?? "extra sessions log in with the first login's key or password (keyboard-interactive "
                        + "answers are not repeated); a rule with sessions 1 needs one login")
            }
        }
        return made
    }

    private static func hop(_ request: PasswordRequest) -> String { "\(request.hopName)\u{0}\(request.user)" }
    private static func key(_ request: KeyPassphraseRequest) -> String {
        "\(request.hopName)\u{0}\(request.keyDescription)"
    }

    private final class Recording: ConnectDelegate {
        let inner: ConnectDelegate
        let memory: RepeatLogin

        init(inner: ConnectDelegate, memory: RepeatLogin) {
            self.inner = inner
            self.memory = memory
        }

        func decide(_ question: HostKeyQuestion) -> HostKeyDecision {
            let decision = inner.decide(question)
            if decision != .refuse { memory.acceptedKeys[question.lookupName] = question.key.blob }
            return decision
        }

        func askPassword(_ request: PasswordRequest) -> PasswordAnswer? {
            let answer = inner.askPassword(request)
            // The last answer per hop is the one the server took (a refused one is followed by another ask).
            if let answer { memory.passwords[RepeatLogin.hop(request)] = answer.password }
            return answer
        }

        func askKeyPassphrase(_ request: KeyPassphraseRequest) -> SecretBytes? {
            let answer = inner.askKeyPassphrase(request)
            if let answer { memory.passphrases[RepeatLogin.key(request)] = answer }
            return answer
        }

        func answer(_ challenge: KeyboardChallenge) -> [SecretBytes]? { inner.answer(challenge) }

        func note(_ event: ConnectEvent) { inner.note(event) }
    }

    private final class Replaying: ConnectDelegate {
        let memory: RepeatLogin

        init(memory: RepeatLogin) { self.memory = memory }

        func decide(_ question: HostKeyQuestion) -> HostKeyDecision {
            memory.acceptedKeys[question.lookupName] == question.key.blob ? .acceptOnce : .refuse
        }

        func askPassword(_ request: PasswordRequest) -> PasswordAnswer? {
            guard request.attempt == 1, let password = memory.passwords[RepeatLogin.hop(request)] else { return nil }
            return PasswordAnswer(password: password, remember: false)
        }

        func askKeyPassphrase(_ request: KeyPassphraseRequest) -> SecretBytes? {
            memory.passphrases[RepeatLogin.key(request)]
        }

        /// Keyboard-interactive answers (often one-time codes) are not replayed.
        func answer(_ challenge: KeyboardChallenge) -> [SecretBytes]? { nil }
    }
}
