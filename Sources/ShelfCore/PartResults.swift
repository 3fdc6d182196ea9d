// PartResults: the parts of a job split across cores (a search's candidates, a config's lines or aliases), each
// written by the one thread that made it and read once all are done.
import FoundationEssentials

final class PartResults<Part: Sendable>: @unchecked Sendable {
    private var parts: [Part]
    private let empty: Part
    private let lock = Lock()

    init(_ count: Int, empty: Part) {
        parts = Array(repeating: empty, count: count)
        self.empty = empty
    }

    /// Part `index`, taken out (its place left empty): the caller holds the only reference to what it holds, so
    /// appending to an array in it moves the elements instead of copying (and retaining) each.
    func take(_ index: Int) -> Part {
        lock.lock()
        defer { lock.unlock() }
        var part = empty
        swap(&part, &parts[index])
        return part
    }

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
