// PartResults: the parts of a job split across cores (a search's candidates, a config's lines or aliases), each
// written by the one thread that made it and read once all are done.
import FoundationEssentials

final class PartResults<Part: Sendable>: @unchecked Sendable {
    private var parts: [Part]
    private let lock = Lock()

    init(_ count: Int, empty: Part) { parts = Array(repeating: empty, count: count) }

    func set(_ index: Int, _ value: Part) {
        lock.lock()
        parts[index] = value
        lock.unlock()
    }

    var all: [Part] {
        lock.lock()
        defer { lock.unlock() }
        return parts
    }
}
