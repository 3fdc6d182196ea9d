// TUIPrompts: the TUI's ConnectDelegate. It runs on the login thread: each question becomes a dialog posted to the
// run loop (`Action.prompt`), and the thread waits until the user's answer comes back (`Effect.answerPrompt`).
// Every hop of a jump chain asks through here, so jump hosts get the same host-key check and prompts as the target.
import Dispatch
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfSSH
import ShelfUI
import ShelfVault

/// The hand-off between the waiting login thread and the run loop: one question open at a time.
final class PromptChannel: @unchecked Sendable {
    enum Reply {
        case trust(Bool)
        case secret(SecretBytes, remember: Bool)
        case cancelled
    }

    private let mailbox: Mailbox
    private let lock = Lock()
    private let answered = DispatchSemaphore(value: 0)
    private var waiting = false
    private var reply: Reply?

    init(mailbox: Mailbox) { self.mailbox = mailbox }

    /// Login thread: shows the dialog and blocks until it is answered.
    func ask(_ prompt: ConnectPrompt) -> Reply {
        lock.lock()
        waiting = true
        reply = nil
        lock.unlock()
        mailbox.post(.prompt(prompt))
        answered.wait()
        lock.lock()
        defer { lock.unlock() }
        let got = reply ?? .cancelled
        reply = nil
        waiting = false
        return got
    }

    /// Run loop: hands the answer over. Typed text becomes a zeroing buffer here, before anything else runs; an
    /// answer nobody waits for is dropped.
    func answer(_ answer: PromptAnswer) {
        let converted: Reply
        switch answer {
        case .trustHostKey(let trusted): converted = .trust(trusted)
        case .secret(let text, let remember):
            var bytes = Array(text.utf8)
            converted = .secret(SecretBytes.take(&bytes), remember: remember)
        case .cancelled, .replaceChangedKey: converted = .cancelled
        }
        lock.lock()
        guard waiting, reply == nil else {
            lock.unlock()
            return
        }
        reply = converted
        lock.unlock()
        answered.signal()
    }

    /// Quitting with a question open: the login thread stops waiting and gives up.
    func cancelOpenQuestion() { answer(.cancelled) }
}

final class TUIPrompts: ConnectDelegate {
    private let channel: PromptChannel
    /// The hop being connected, named in dialogs the vault asks for (it does not know which host it serves).
    private var currentHop = ""
    /// The user refused a host key: the run loop already said so, no error line needed.
    private(set) var refusedHostKey = false

    init(channel: PromptChannel) { self.channel = channel }

    func decide(_ question: HostKeyQuestion) -> HostKeyDecision {
        let host = Display.safe(question.hopName)
        let prompt: ConnectPrompt
        switch question.reason {
        case .unknown:
            prompt = .hostKey(host: host, keyType: question.key.type, fingerprint: question.fingerprint)
        case .otherType(let types, let source):
            prompt = .keyMismatch(
                KeyMismatch(
                    kind: .otherType, host: host, address: Display.safe(question.lookupName),
                    offered: "\(question.key.type) \(question.fingerprint)", known: types.map(Display.safe),
                    source: source.rawValue))
        }
        if case .trust(true) = channel.ask(prompt) { return .acceptAndRemember }
        refusedHostKey = true
        return .refuse
    }

    func askPassword(_ request: PasswordRequest) -> PasswordAnswer? {
        var text = "\(Display.safe(request.destination))'s password:"
        if request.attempt > 1 { text = "Permission denied, please try again. " + text }
        if let note = request.note { text = "(\(Display.safe(note))) " + text }
        guard
            case .secret(let password, let remember) = secret(request.hopName, text, offerRemember: request.canRemember)
        else { return nil }
        return PasswordAnswer(password: password, remember: remember && request.canRemember)
    }

    func askKeyPassphrase(_ request: KeyPassphraseRequest) -> SecretBytes? { askKeyPassphraseToKeep(request)?.password }

    /// The same masked dialog as a password, with "remember in the vault" when the key's identity can keep it.
    func askKeyPassphraseToKeep(_ request: KeyPassphraseRequest) -> PasswordAnswer? {
        let text = "Passphrase for the key of identity '\(Display.safe(request.keyDescription))':"
        guard
            case .secret(let passphrase, let remember) = secret(
                request.hopName, text, offerRemember: request.canRemember)
        else { return nil }
        return PasswordAnswer(password: passphrase, remember: remember && request.canRemember)
    }

    /// One dialog per prompt of the round, each with the server's echo setting.
    func answer(_ challenge: KeyboardChallenge) -> [SecretBytes]? {
        var answers: [SecretBytes] = []
        for (i, prompt) in challenge.prompts.enumerated() {
            // The server's name and instruction go with the first prompt (all already cleaned of control codes).
            let lead = i == 0 ? [challenge.name, challenge.instruction] : []
            let text = (lead + [prompt.text]).map { $0.replacing("\n", with: " ") }
                .filter { !$0.trimmingSpaces().isEmpty }.joined(separator: " ")
            guard case .secret(let typed, _) = secret(challenge.hopName, text, echo: prompt.echo) else { return nil }
            answers.append(typed)
        }
        return answers
    }

    func note(_ event: ConnectEvent) {
        switch event {
        case .connecting(let hop, _): currentHop = hop
        case .jumping(_, let to): currentHop = to
        default: break
        }
    }

    /// The vault's passphrase when an item is locked (`question` says so, and whether the last one was wrong),
    /// asked in a masked dialog of the hop being connected.
    func vaultPassphrase(_ question: String) -> SecretBytes? {
        guard case .secret(let passphrase, _) = secret(currentHop, question) else { return nil }
        return passphrase
    }

    private func secret(_ hop: String, _ text: String, echo: Bool = false, offerRemember: Bool = false)
        -> PromptChannel.Reply
    {
        channel.ask(
            .secret(
                host: Display.safe(hop), prompt: text, echo: echo, input: "", remember: false,
                offerRemember: offerRemember))
    }
}
