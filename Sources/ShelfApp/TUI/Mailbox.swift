// Mailbox: actions posted by background work for the run loop to apply between key polls.
import Foundation
import ShelfUI

final class Mailbox: @unchecked Sendable {
    private let lock = NSLock()
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

    /// Posts an action nobody waits for (a status change).
    func post(_ action: Action) {
        lock.lock()
        pending.append(action)
        lock.unlock()
    }

    /// Posts the result of work announced with `expect()`.
    func deliver(_ action: Action) {
        lock.lock()
        pending.append(action)
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
