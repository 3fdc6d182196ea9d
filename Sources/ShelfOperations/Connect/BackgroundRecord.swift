// BackgroundRecord: saves a connection's outcome (pins, remembered references, last-connected time) on its own
// thread while the session runs. The store commits with synchronous=FULL, whose fsync measured ~85 ms here: done
// inline it would be the largest part of `sshelf exec H -- true`. The main thread does not touch the store until
// `wait()` returns.
import FoundationEssentials
import Glibc
import ShelfSSH
import ShelfStore

public final class BackgroundRecord: @unchecked Sendable {
    private var failure: Error?
    private var thread = pthread_t()
    private var started = false

    private let outcome: ConnectOutcome
    private let target: UUID
    private let store: Store

    public init(_ outcome: ConnectOutcome, target: UUID, store: Store) {
        self.outcome = outcome
        self.target = target
        self.store = store
        // A joinable POSIX thread, so nothing of it is still running when the process exits.
        let context = Unmanaged.passUnretained(self).toOpaque()
        started =
            pthread_create(
                &thread, nil,
                { context in
                    guard let context else { return nil }
                    Unmanaged<BackgroundRecord>.fromOpaque(context).takeUnretainedValue().run()
                    return nil
                }, context) == 0
        if !started { run() }
    }

    private func run() {
        do { try ConnectPlan.record(outcome, target: target, store: store) } catch { failure = error }
    }

    /// Waits for the write; returns its error, if any.
    public func wait() -> Error? {
        if started {
            pthread_join(thread, nil)
            started = false
        }
        return failure
    }
}
