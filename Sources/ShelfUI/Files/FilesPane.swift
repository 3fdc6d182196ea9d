// FilesPane: the file pane (`F` on a host, `sshelf files HOST`) — this machine's folder on the left, the host's on
// the right, each with its path, its entries as they arrive, a cursor, and a filter; which side has the keys, and
// whether hidden names show. The app lists the folders and sends what it read as `FilesPane.Listing`.
import FoundationEssentials
import ShelfCore

public struct FilesPane: Sendable, Equatable {
    public enum Side: Int, Sendable, Equatable, CaseIterable { case local = 0, remote = 1 }

    /// One side: a folder and what is in it.
    public struct Column: Sendable, Equatable {
        /// The folder's path, in bytes (made of listed names); empty until the app says where it starts.
        public var path: [UInt8] = []
        /// Every entry read so far, in the order the side shows them (folders first, then by name).
        public var entries: [FileEntry] = []
        /// True until the whole folder was read (the first screenful shows before).
        public var loading = true
        public var error: String?
        /// A note from the app about the listing (names left out, and why).
        public var note: String?
        public var cursor = 0
        /// The filter typed after `/`: every word in the name, case folded.
        public var filter = ""
        /// Counts listings asked for: a batch of an older one is dropped.
        public var generation = 0
        /// Names marked with Space for a copy (cleared when the side lists another folder).
        public var marks: Set<[UInt8]> = []
        /// The name to put the cursor on as the folder arrives: the folder just left when going up, the entry a
        /// change or a reload was on, the name the user moved to while it still arrives.
        public var wanted: [UInt8]?
        /// Indices into `entries` shown now (hidden names and the filter applied).
        public var visible: [Int] = []

        public var selected: FileEntry? { visible.indices.contains(cursor) ? entries[visible[cursor]] : nil }
        public var shownPath: String { FileName.shown(path) }
    }

    /// What the app read of a folder so far: every entry read until now, in the side's order (the app sorts off the
    /// key path and sends the first screenful at once, then the growing list a few times a second).
    public struct Listing: Sendable, Equatable {
        public var side: Side
        public var generation: Int
        public var path: [UInt8]
        public var entries: [FileEntry]
        public var complete: Bool
        public var error: String?
        public var note: String?

        public init(
            side: Side, generation: Int, path: [UInt8], entries: [FileEntry], complete: Bool,
            error: String? = nil, note: String? = nil
        ) {
            self.side = side
            self.generation = generation
            self.path = path
            self.entries = entries
            self.complete = complete
            self.error = error
            self.note = note
        }
    }

    public var hostID: UUID
    public var hostName: String
    /// The host's side is logged in (until then it says "connecting").
    public var connected = false
    /// Why the host's side could not be opened.
    public var failure: String?
    public var columns: [Column] = [Column(), Column()]
    public var active: Side = .remote
    public var showHidden = false
    /// True while keys go into the active side's filter.
    public var filtering = false
    /// The change being asked for (a new folder's name, a rename, a delete's confirmation, a mode).
    public var question: FilesQuestion?
    /// The copies asked for in this pane, oldest first.
    public var transfers: [FilesTransfer] = []
    /// The id the next copy gets.
    var nextTransfer = 1

    public init(hostID: UUID, hostName: String) {
        self.hostID = hostID
        self.hostName = hostName
    }

    public subscript(side: Side) -> Column {
        get { columns[side.rawValue] }
        set { columns[side.rawValue] = newValue }
    }

    /// Recomputes which entries a side shows, keeping the cursor on the same name when it still shows.
    mutating func refilter(_ side: Side) {
        var column = self[side]
        let keep = column.selected?.name
        // Bytes against bytes, as the host list's matcher does: folding every name afresh and searching it as text
        // took 40 ms a key in a folder of 10,000.
        let words = column.filter.split(separator: " ").map { Array(HostSearch.fold(String($0)).utf8) }
        column.visible = column.entries.indices.filter { index in
            let entry = column.entries[index]
            if !showHidden && entry.isHidden && words.isEmpty { return false }
            guard !words.isEmpty else { return true }
            return words.allSatisfy { Self.contains(entry.folded, $0) }
        }
        if let keep, let at = column.visible.firstIndex(where: { column.entries[$0].name == keep }) {
            column.cursor = at
        } else {
            column.cursor = min(column.cursor, max(0, column.visible.count - 1))
        }
        self[side] = column
    }

    /// Whether `word` appears in `text` (both folded, in bytes).
    static func contains(_ text: [UInt8], _ word: [UInt8]) -> Bool {
        guard let first = word.first else { return true }
        guard text.count >= word.count else { return false }
        for start in 0...(text.count - word.count) where text[start] == first {
            if text[start..<(start + word.count)].elementsEqual(word) { return true }
        }
        return false
    }

    /// Folders first, then names in natural order (`file2` before `file10`).
    public static func precedes(_ a: FileEntry, _ b: FileEntry) -> Bool {
        if a.opens != b.opens { return a.opens }
        return NaturalOrder.precedes(a.shown, b.shown)
    }
}
