// BackgroundRecord: saves a connection's outcome (pins, remembered references, last-connected time) on its own
// thread while the session runs. The store commits with synchronous=FULL, whose fsync measured ~85 ms here: done
// inline it would be the largest part of `sshelf exec H -- true`. The main thread does not touch the store until
// `wait()` returns.
import Foundation
import ShelfSSH
import ShelfStore

final class BackgroundRecord: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var failure: Error?

    private let outcome: ConnectOutcome
    private let target: UUID
    private let store: Store

    init(_ outcome: ConnectOutcome, target: UUID, store: Store) {
        self.outcome = outcome
        self.target = target
        self.store = store
        Thread.detachNewThread { [self] in
            do { try ConnectPlan.record(self.outcome, target: self.target, store: self.store) } catch { failure = error }
            done.signal()
        }
    }

    /// Waits for the write; returns its error, if any.
    func wait() -> Error? {
        done.wait()
        return failure
    }
}
