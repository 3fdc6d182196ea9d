// OptionCheckWorker: which of the selected host's kept option lines the installed ssh refuses, for the details pane
// — the words `show`, `check`, the import and the bridge use (RefusedOptions). The run loop says which host is
// selected; lines not asked about yet go to one `ssh -G` run on a background thread, and the answer reaches the state
// through the mailbox. Each line is asked once per TUI (ssh's answer does not change while it runs); a key never
// waits for it.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfSystem
import ShelfUI

final class OptionCheckWorker: @unchecked Sendable {
    private let lock = Lock()
    private let mailbox: Mailbox
    private let scratch: String
    /// Lines asked about (or being asked about) already.
    private var asked: Set<String> = []
    private var lastHost: UUID?

    init(mailbox: Mailbox, scratch: String) {
        self.mailbox = mailbox
        self.scratch = scratch
    }

    /// Called by the run loop after anything changed; cheap when the selection and its lines are unchanged.
    func follow(_ state: UIState) {
        guard let host = state.selectedHost else { return }
        let lines =
            host.options + state.catalog.optionDefaults.filter { $0.matches(host.name) }.flatMap(\.options)
        let new: [String] = lock.withLock {
            guard lastHost != host.id || lines.contains(where: { !asked.contains($0) }) else { return [] }
            lastHost = host.id
            let fresh = RefusedOptions.candidates([lines]).filter { !asked.contains($0) }
            asked.formUnion(fresh)
            return fresh
        }
        guard !new.isEmpty else { return }
        let (mailbox, scratch) = (self.mailbox, self.scratch)
        BackgroundThread.start(name: "sshelf-option-check") {
            guard (try? PrivateFiles.ensureDirectory(scratch)) != nil else { return }
            let refused = RefusedOptions.refused([new], scratch: scratch)
            if !refused.isEmpty { mailbox.post(.optionsRefused(refused)) }
        }
    }
}
