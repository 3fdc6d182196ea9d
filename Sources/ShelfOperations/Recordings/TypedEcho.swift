// TypedEcho: which typed bytes a recording may keep. A typed byte is held until the server's output echoes it, and
// kept only then; a byte whose echo does not come (a password typed into sudo or any prompt with echo off, a
// control key) is dropped. The echo must start the next output: anything else first and the held bytes are dropped,
// so a recording can miss an echoed key, never keep an unechoed one.
struct TypedEcho {
    /// Typed and not yet echoed, with when.
    private(set) var held: [UInt8] = []
    private(set) var heldSince: Double = 0

    mutating func typed(_ bytes: [UInt8], at time: Double) {
        if held.isEmpty { heldSince = time }
        held += bytes
    }

    /// The held bytes `output` echoes at its start (kept), the rest dropped.
    mutating func shown(_ output: UnsafeRawBufferPointer) -> [UInt8] {
        guard !held.isEmpty else { return [] }
        var matched = 0
        while matched < held.count, matched < output.count, held[matched] == output[matched] { matched += 1 }
        let kept = Array(held.prefix(matched))
        // The output ended inside the held bytes: the rest may still be echoed by the next output.
        if matched == output.count && matched < held.count {
            held.removeFirst(matched)
        } else {
            held = []
        }
        return kept
    }

    /// Drops what was held longer than `limit` seconds by `now` (an echo never came).
    mutating func expire(now: Double, limit: Double) {
        if !held.isEmpty && now - heldSince > limit { held = [] }
    }
}
