// ForwardBuffer: a fixed-size byte buffer between a socket and a channel. Fixed, so a slow reader on one side
// stops reads on the other (backpressure) instead of growing memory.
import FoundationEssentials
import Glibc

final class ForwardBuffer {
    static let capacity = 256 * 1024
    private let storage: UnsafeMutableRawBufferPointer
    private var start = 0
    private var end = 0

    init() { storage = .allocate(byteCount: Self.capacity, alignment: 16) }
    deinit { storage.deallocate() }

    var count: Int { end - start }
    var isEmpty: Bool { end == start }
    var isFull: Bool { count == Self.capacity }

    /// Free space at the tail (moving the unread bytes to the front first when that makes room).
    var space: UnsafeMutableRawBufferPointer {
        if end == Self.capacity && start > 0 {
            let base = storage.baseAddress!  // allocated in init, never nil
            memmove(base, base + start, count)
            end -= start
            start = 0
        }
        return UnsafeMutableRawBufferPointer(rebasing: storage[end..<Self.capacity])
    }

    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: storage[start..<end]) }

    func produced(_ count: Int) { end += count }

    func consumed(_ count: Int) {
        start += count
        if start == end {
            start = 0
            end = 0
        }
    }

    func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { source in
            let room = space
            let count = min(room.count, source.count)
            if count > 0 { room.baseAddress!.copyMemory(from: source.baseAddress!, byteCount: count) }
            produced(count)
        }
    }

    func clear() {
        start = 0
        end = 0
    }
}
