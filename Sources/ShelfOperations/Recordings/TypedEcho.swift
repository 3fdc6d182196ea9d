// TypedEcho: which typed bytes a recording may keep. A typed byte is held until the server's output echoes it, and
// kept only then; a byte whose echo does not come (a password typed into sudo or any prompt with echo off, a
// control key) is dropped. The rule is strict on purpose — a recording can miss an echoed key, never keep an
// unechoed one: the echo must start the next output, come within `window` seconds, and come before the next key is
// typed. The last is what keeps a password typed with echo off out even when the output after it begins with the
// same bytes (a program printing what it read): its keys were typed one by one, none echoed before the next, so
// each was dropped when the next came, and only the Enter at the end is compared. A read that holds a line end among
// other bytes (a paste of a line, keys typed faster than one read) is never kept: a password pasted with its Enter
// at a prompt with echo off arrives that way, and the output after it can start with the same bytes (a program
// printing what it read), which no rule on the output can tell from an echo; nor can it tell where a paste that
// starts while echo is on and runs on past a line end (into whatever that line starts, which may turn echo off)
// stops being echoed. When in doubt, the bytes are left out; the output still shows whatever the server echoed.
struct TypedEcho {
    /// Seconds an echo may take: longer, and the bytes held are dropped.
    static let window = 1.0

    /// Typed and not yet echoed, with when.
    private(set) var held: [UInt8] = []
    private(set) var heldSince: Double = 0

    /// Keys typed (one read of the terminal). What was held still unechoed is dropped: its echo did not come first.
    /// A read with a line end among other bytes is not held at all (above).
    mutating func typed(_ bytes: [UInt8], at time: Double) {
        held = bytes.count > 1 && bytes.contains(where: Self.endsALine) ? [] : bytes
        heldSince = time
    }

    /// Carriage return, line feed, and ^D (end of file): what hands a line to the program reading it.
    static func endsALine(_ byte: UInt8) -> Bool { byte == 0x0D || byte == 0x0A || byte == 0x04 }

    /// The held bytes `output` echoes at its start (kept), the rest dropped.
    mutating func shown(_ output: UnsafeRawBufferPointer, at time: Double) -> [UInt8] {
        guard !held.isEmpty else { return [] }
        guard time - heldSince <= Self.window else {
            held = []
            return []
        }
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
