// ServiceWatch: the user service's one inotify descriptor — the store's folder (a commit by any process writes the
// store's WAL file; docs/SERVICE.md, "The change notification") and a folder remote with its subfolders (another
// device wrote there). Events are read here and sorted into those two answers; nothing is polled.
import FoundationEssentials
import Glibc

final class ServiceWatch {
    struct Events {
        /// The store file or its WAL was written (a commit, or a checkpoint: the caller reads the data version).
        var store = false
        /// Something under the folder remote changed.
        var remote = false
        /// A watched folder of the remote went away or a folder appeared: the watches are set up again.
        var rewatch = false
    }

    static let remoteDepth = 4
    let fd: Int32
    private let storeFolder: String
    private let storeNames: Set<String>
    private var storeWatch: Int32 = -1
    private var remoteWatches: Set<Int32> = []
    private(set) var remoteFolder: String?
    /// Whether the folder remote is watched now (it may be missing: watched again once it is back).
    var watchingRemote: Bool { !remoteWatches.isEmpty }

    init(store: String) {
        fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        let slash = store.lastIndex(of: "/") ?? store.startIndex
        storeFolder = String(store[..<slash])
        let name = String(store[store.index(after: slash)...])
        storeNames = [name, name + "-wal"]
        if fd >= 0 {
            storeWatch = inotify_add_watch(
                fd, storeFolder, UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE))
        }
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Watches `folder` (nil: none) and its subfolders, dropping the watches of the folder watched before.
    func watchRemote(_ folder: String?) {
        guard fd >= 0 else { return }
        if folder != remoteFolder {
            for watch in remoteWatches { inotify_rm_watch(fd, watch) }
            remoteWatches = []
        }
        remoteFolder = folder
        guard let folder else { return }
        let mask = UInt32(
            IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF
                | IN_MOVE_SELF | IN_ATTRIB)
        var pending = [(folder, 0)]
        while let (path, depth) = pending.popLast() {
            // Adding a watch twice returns the same one: harmless.
            let watch = inotify_add_watch(fd, path, mask | UInt32(IN_DONT_FOLLOW) | UInt32(IN_ONLYDIR))
            guard watch >= 0 else { continue }
            remoteWatches.insert(watch)
            guard depth < Self.remoteDepth else { continue }
            for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
                var info = stat()
                let child = path + "/" + name
                if lstat(child, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR { pending.append((child, depth + 1)) }
            }
        }
    }

    /// Reads every queued event (the descriptor is non-blocking).
    func read() -> Events {
        var events = Events()
        guard fd >= 0 else { return events }
        let size = 64 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            let got = Glibc.read(fd, buffer, size)
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { break }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= got {
                let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                let nameStart = offset + MemoryLayout<inotify_event>.size
                let length = Int(event.len)
                var name = ""
                if length > 0, nameStart + length <= got {
                    let bytes = UnsafeRawBufferPointer(start: buffer + nameStart, count: length)
                    name = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
                }
                offset = nameStart + length
                if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
                    events.store = true
                    events.remote = remoteFolder != nil
                    events.rewatch = remoteFolder != nil
                    continue
                }
                if event.wd == storeWatch {
                    if storeNames.contains(name) { events.store = true }
                    continue
                }
                guard remoteWatches.contains(event.wd) else { continue }
                events.remote = true
                if event.mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) != 0 {
                    remoteWatches.remove(event.wd)
                    events.rewatch = true
                }
                if event.mask & UInt32(IN_ISDIR) != 0, event.mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 {
                    events.rewatch = true
                }
            }
        }
        return events
    }
}
