// SSHConfigRelease: what reading and resolving a large config made and no longer needs (half a million lines, a
// block and an index entry per host) is freed on another core: freeing it was tens of milliseconds of the
// import's one thread, while the other core had nothing to do.
import Dispatch
import FoundationEssentials

enum SSHConfigRelease {
    /// Drops the last reference to `value` on another thread.
    static func elsewhere<T: Sendable>(_ value: consuming T) {
        let box = Box(value)
        DispatchQueue.global(qos: .utility).async { withExtendedLifetime(box) {} }
    }

    /// Holds the value until the other thread lets go of it.
    final class Box<T: Sendable>: Sendable {
        let value: T
        init(_ value: consuming T) { self.value = value }
    }
}
