// Mailbox: actions posted by background work for the run loop to apply between key polls.
import Foundation
import ShelfUI

final class Mailbox: @unchecked Sendable {
    private let lock = NSLock()
    private var pending: [Action] = []

    func post(_ action: Action) {
        lock.lock()
        pending.append(action)
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
