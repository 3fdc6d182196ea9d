// CredentialStamp: when, and by whom, a credential item was last written or deleted — the vault's time in
// milliseconds, a per-item counter, and the author's device id, compared in that order. A device's next write of an
// item is stamped after every stamp it knew for it (the counter moves on when its clock does not), so a later write
// by the same device always wins, on every device, even twice within one second or with a clock that stepped back;
// two devices' writes in the same millisecond go to the same one everywhere (the author, not the receiver, decides).
import FoundationEssentials

struct CredentialStamp: Codable, Equatable, Comparable {
    var time: Int64
    var counter: UInt32
    /// The writing device's id (lower-case); empty for a stamp carried over from before authors were recorded.
    var author: String

    static func < (lhs: CredentialStamp, rhs: CredentialStamp) -> Bool {
        (lhs.time, lhs.counter, lhs.author) < (rhs.time, rhs.counter, rhs.author)
    }

    /// The stamp of a write by `device` at `time` (ms), after `known` (the latest stamp it knew for the item).
    static func next(after known: CredentialStamp?, at time: Int64, by device: String) -> CredentialStamp {
        guard let known, time <= known.time else { return CredentialStamp(time: time, counter: 0, author: device) }
        return CredentialStamp(time: known.time, counter: known.counter &+ 1, author: device)
    }

    /// A vault time in milliseconds (the vault keeps seconds with their fraction).
    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    static func date(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(milliseconds) / 1000) }
}
