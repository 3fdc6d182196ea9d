// BackgroundValue: one value made on another core while this thread does other work (an import's id order while it
// reads the store, its summary's text while it commits); `value` waits for it. Release.elsewhere: the other half,
// a large value freed on another core (and the free pages given back, for a read config).
import Dispatch
import FoundationEssentials
import ShelfCore
import ShelfSystem

final class BackgroundValue<Value: Sendable>: @unchecked Sendable {
    private var result: Value?
    private let done = DispatchSemaphore(value: 0)
    private let lock = Lock()

    init(_ make: @escaping @Sendable () -> Value) {
        DispatchQueue.global(qos: .userInitiated).async {
            let made = make()
            self.lock.lock()
            self.result = made
            self.lock.unlock()
            self.done.signal()
        }
    }

    /// The value, once made (waits until then; every later call returns at once).
    var value: Value {
        done.wait()
        done.signal()
        lock.lock()
        defer { lock.unlock() }
        guard let result else { preconditionFailure("signalled before the value was set") }
        return result
    }
}

public enum Release {
    /// Drops the last reference to `value` on another core: freeing what a 100,000-host file parses into (half a
    /// million lines, 100,000 hosts) took the import's one thread tens of milliseconds, while the other core was idle.
    public static func elsewhere<T: Sendable>(_ value: T) {
        DispatchQueue.global(qos: .utility).async { withExtendedLifetime(value) {} }
    }

    /// The same, then gives back malloc's free pages and the read-only file pages mapped so far (ProcessMemory.settle).
    /// A read config's words were allocated by both lexing threads: what the other thread's arena frees stays resident
    /// (malloc keeps it for that thread, which makes nothing more) while the inserts grow the main arena — 5 MiB of a
    /// 100,000-host import's peak (docs/PERFORMANCE.md, "Import").
    static func elsewhereGivingBack<T: Sendable>(_ value: consuming T) {
        let holder = Holder(value)
        DispatchQueue.global(qos: .utility).async {
            holder.drop()
            ProcessMemory.settle()
        }
    }

    /// The last reference to a value, dropped on the thread that calls `drop`.
    private final class Holder<T: Sendable>: @unchecked Sendable {
        private var value: T?
        init(_ value: consuming T) { self.value = value }
        func drop() { value = nil }
    }
}
