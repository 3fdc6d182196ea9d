// SSHConfigWords: the arguments of one ssh_config line, the first word kept inline and only the others in an array.
// Nearly every line of a config has one word (`HostName db-4217.fra.example.com`): an array per line was half a
// million allocations and about 25 MB of a 100,000-host import's peak (docs/PERFORMANCE.md, "Import").
public struct SSHConfigWords: RandomAccessCollection, Hashable, Sendable, ExpressibleByArrayLiteral {
    /// The first word (nil: no words); `rest` is empty whenever it is nil.
    private var head: String?
    private var rest: [String]

    public init() {
        head = nil
        rest = []
    }

    public init<Words: Sequence<String>>(_ words: Words) {
        var iterator = words.makeIterator()
        head = iterator.next()
        rest = []
        while let word = iterator.next() { rest.append(word) }
    }

    public init(arrayLiteral words: String...) { self.init(words) }

    public var startIndex: Int { 0 }
    public var endIndex: Int { head == nil ? 0 : 1 + rest.count }

    public subscript(position: Int) -> String {
        precondition(position >= 0 && position < endIndex, "word \(position) of a line with \(endIndex)")
        return position == 0 ? head ?? "" : rest[position - 1]
    }

    /// The words as an array (for an API that takes one).
    public var array: [String] { Array(self) }

    /// Adds a word at the end.
    public mutating func append(_ word: String) {
        if head == nil { head = word } else { rest.append(word) }
    }

    public static func == (lhs: SSHConfigWords, rhs: SSHConfigWords) -> Bool {
        lhs.head == rhs.head && lhs.rest == rhs.rest
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(head)
        hasher.combine(rest)
    }
}

/// Words a config repeats from host to host (`IdentityFile ~/.ssh/id_ed25519_prod`, `ProxyJump bastion-fra-prod`)
/// made once and shared: a word longer than a String keeps inline is an allocation each time it is made. A small
/// direct-mapped table by the word's hash: a word that comes back soon is found, a new one takes its slot.
struct SSHConfigWordCache {
    private var slots = [String?](repeating: nil, count: 1024)

    /// The word made from `bytes`, or the same word made before.
    mutating func word(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard bytes.count > 15 else { return String(decoding: bytes, as: UTF8.self) }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let slot = Int(truncatingIfNeeded: hash & UInt64(slots.count - 1))
        if let known = slots[slot], known.utf8.elementsEqual(bytes) { return known }
        let made = String(decoding: bytes, as: UTF8.self)
        slots[slot] = made
        return made
    }
}
