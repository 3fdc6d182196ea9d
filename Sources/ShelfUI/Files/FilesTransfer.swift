// FilesTransfer: one copy of the file pane — what goes where (the marked entries of one side into the other side's
// folder), and how far it is: bytes, rate, time left when the size is known ahead, and how it ended. The pane lists
// them (the queue), newest last; the app runs them one at a time on the host's connection.
import FoundationEssentials

public struct FilesTransfer: Sendable, Equatable {
    public enum Direction: Sendable, Equatable { case upload, download }
    public enum State: Sendable, Equatable { case queued, running, done, failed, cancelled }

    /// What to copy: the sources' full paths (bytes), their names as shown, and the destination folder.
    public struct Request: Sendable, Equatable {
        public var id: Int
        public var direction: Direction
        public var sources: [[UInt8]]
        public var destination: [UInt8]
        /// The bytes to copy, when known ahead (regular files only).
        public var total: UInt64?
    }

    public var request: Request
    public var title: String
    public var state: State = .queued
    public var bytes: UInt64 = 0
    /// Bytes a second, averaged over the copy so far.
    public var rate: Double = 0
    /// What the copy said at its end (`2 files, 5000 bytes`, or why it failed and what was copied).
    public var detail = ""

    public init(request: Request, title: String) {
        self.request = request
        self.title = title
    }

    public var isOpen: Bool { state == .queued || state == .running }

    /// The pane's line: `↓ app.tar to /home/me  12.0M of 117M, 40.1M/s, 3 s left`.
    public var line: String {
        let arrow = request.direction == .download ? "↓" : "↑"
        var text = "\(arrow) \(title)  "
        switch state {
        case .queued: text += "queued"
        case .running:
            text += FilesTransfer.size(bytes)
            if let total = request.total { text += " of " + FilesTransfer.size(total) }
            if rate > 0 {
                text += ", \(FilesTransfer.size(UInt64(rate)))/s"
                if let total = request.total, total > bytes {
                    text += ", \(Int((Double(total - bytes) / rate).rounded(.up))) s left"
                }
            }
        case .done: text += "done: " + detail
        case .failed: text += "failed: " + detail
        case .cancelled: text += "cancelled" + (detail.isEmpty ? "" : ": " + detail)
        }
        return text
    }

    static func size(_ bytes: UInt64) -> String {
        FileEntry(name: [], kind: .file, size: bytes).sizeText + (bytes < 10_000 ? " bytes" : "")
    }
}
