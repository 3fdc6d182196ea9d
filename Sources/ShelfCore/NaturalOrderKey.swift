// NaturalOrderKey: a name's natural order worked out once — its folded, lower-cased and own chunks — so sorting many
// names (a folder of 10,000 in the file pane) compares prepared keys instead of folding and splitting both names
// again at every comparison. The same order as NaturalOrder.precedes, which NaturalOrderTests hold it to.
extension NaturalOrder {
    public struct Key: Sendable, Equatable {
        let text: String
        let folded: [Chunk]
        let lowered: [Chunk]
        let own: [Chunk]

        public init(_ text: String) {
            self.text = text
            folded = NaturalOrder.chunks(HostSearch.fold(text))
            lowered = NaturalOrder.chunks(text.lowercased())
            own = NaturalOrder.chunks(text)
        }

        /// True when `a` sorts before `b`, as NaturalOrder.precedes(a's text, b's text).
        public static func precedes(_ a: Key, _ b: Key) -> Bool {
            if a.text == b.text { return false }
            if let primary = NaturalOrder.compare(a.folded, b.folded) { return primary }
            if let accents = NaturalOrder.compare(a.lowered, b.lowered) { return accents }
            if let width = NaturalOrder.numberWidths(a.own, b.own) { return width }
            return b.text.unicodeScalars.lexicographicallyPrecedes(a.text.unicodeScalars)
        }
    }
}
