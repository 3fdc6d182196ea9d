// FleetStream: `run --stream` — each host's output printed line by line as it arrives, prefixed by the host's name
// (as `pssh -P` and clush without -b print it): stdout lines on stdout, stderr lines on stderr, each line one write
// under one lock, so lines of different hosts never mix and each host's come in its own order. A host's unfinished
// last line is printed when the host ends; a line longer than `longestLine` is printed in parts.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfSystem

public final class FleetStream: @unchecked Sendable {
    /// Longest piece of a line held back waiting for its end (a host that never sends a newline costs no more).
    public static let longestLine = 64 * 1024

    private let lock = Lock()
    private let show: ([UInt8]) -> [UInt8]
    private let write: (_ bytes: [UInt8], _ fd: Int32) -> Void

    /// `show` turns one line of a host's output (without its newline) into what is printed: the host output
    /// sanitiser on a terminal, the bytes as they came for a file or a pipe. `write` (tests) replaces the output.
    public init(
        show: @escaping ([UInt8]) -> [UInt8],
        write: @escaping (_ bytes: [UInt8], _ fd: Int32) -> Void = { bytes, fd in
            bytes.withUnsafeBytes { StandardStreams.write($0, fd: fd) }
        }
    ) {
        self.show = show
        self.write = write
    }

    /// The line splitter of one host (one per host; used from that host's thread only).
    public func host(_ name: String) -> Host { Host(prefix: Array((Display.safe(name) + ": ").utf8), stream: self) }

    fileprivate func print(_ prefix: [UInt8], _ line: ArraySlice<UInt8>, toStderr: Bool) {
        let shown = prefix + show(Array(line)) + [0x0A]
        lock.lock()
        defer { lock.unlock() }
        write(shown, toStderr ? 2 : 1)
    }

    public final class Host: @unchecked Sendable {
        private let prefix: [UInt8]
        private let stream: FleetStream
        private var pending: [[UInt8]] = [[], []]

        fileprivate init(prefix: [UInt8], stream: FleetStream) {
            self.prefix = prefix
            self.stream = stream
        }

        /// The next chunk of the host's stdout or stderr: every line it ends is printed.
        public func feed(_ chunk: UnsafeRawBufferPointer, toStderr: Bool) {
            let which = toStderr ? 1 : 0
            var buffer = pending[which]
            pending[which] = []
            buffer.append(contentsOf: chunk)
            var start = buffer.startIndex
            while let newline = buffer[start...].firstIndex(of: 0x0A) {
                stream.print(prefix, buffer[start..<newline], toStderr: toStderr)
                start = newline + 1
            }
            while buffer.endIndex - start >= FleetStream.longestLine {
                stream.print(prefix, buffer[start..<start + FleetStream.longestLine], toStderr: toStderr)
                start += FleetStream.longestLine
            }
            pending[which] = Array(buffer[start...])
        }

        /// The host ended: a last line without its newline is printed.
        public func finish() {
            for which in 0..<2 where !pending[which].isEmpty {
                stream.print(prefix, pending[which][...], toStderr: which == 1)
                pending[which] = []
            }
        }
    }
}
