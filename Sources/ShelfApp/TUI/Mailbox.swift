// Mailbox: actions posted by background work for the run loop to apply between key polls.
import FoundationEssentials
import ShelfCore
import ShelfUI

final class Mailbox: @unchecked Sendable {
    private let lock = Lock()
    private var pending: [Action] = []
    private var outstanding = 0

    /// Background work was started whose result will be posted; the run loop polls keys more often meanwhile.
    func expect() {
        lock.lock()
        outstanding += 1
        lock.unlock()
    }

    var isExpecting: Bool {
        lock.lock()
        defer { lock.unlock() }
        return outstanding > 0
    }

    /// How long the run loop may wait for a key: not at all when results are waiting, briefly while work is
    /// outstanding (decided under one lock, so a result that lands in between is never left for `idle`).
    func pollTimeout(idle: Int, expecting: Int) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return !pending.isEmpty ? 0 : (outstanding > 0 ? expecting : idle)
    }

    /// Posts an action nobody waits for (a status change).
    func post(_ action: Action) {
        lock.lock()
        pending.append(action)
        lock.unlock()
    }

    /// Posts the result of work announced with `expect()` (several actions land together: no screen between them).
    func deliver(_ actions: Action...) {
        lock.lock()
        pending.append(contentsOf: actions)
        outstanding = max(0, outstanding - 1)
        lock.unlock()
    }

    func take() -> [Action] {
        lock.lock()
        defer { lock.unlock() }
        let taken = pending
        pending = []
        return taken
    }
}
