// FleetCopyLanes: a copy's files several at a time. Copied one after another, each small file waited for a few round
// trips (open, read or write, close, rename); here up to `width` lanes each copy a file of their own, each on its own
// SFTP channel of the copy's connection and its own thread, the connection taken in turn (SftpSession's turns). The
// walk of the folders stays on the caller's thread and hands each file to a free lane, waiting while all are busy: a
// window of `width` files, one buffer each. A lane is opened only when the others are busy and more files come; a copy
// of a single file opens none and runs as before. A server that refuses one more channel (sshd's MaxSessions) leaves
// the copy with the lanes it has — with none, the files are copied on the caller's own channel.
import FoundationEssentials
import ShelfCore
import ShelfSSH
import ShelfSystem

final class FleetCopyLanes {
    /// Files in flight at most (sshd allows 10 channels on a connection by default, the copy's own one of them).
    static let defaultWidth = 8

    private final class Lane {
        let sftp: SftpSession
        var job: ((SftpSession) -> Void)?
        var thread: JoinableThread?

        init(_ sftp: SftpSession) { self.sftp = sftp }
    }

    private let primary: SftpSession
    private let width: Int
    private let condition = Condition()
    private var lanes: [Lane] = []
    /// The first file, held until a second comes: alone, it is copied on the caller's channel with no lane at all.
    private var held: ((SftpSession) -> Void)?
    private var busy = 0
    private var ending = false
    /// The server refused one more channel: the copy goes on with the lanes it has.
    private var full = false

    init(_ primary: SftpSession, width: Int) {
        self.primary = primary
        self.width = width
    }

    /// Copies one file by `job` (given the channel to use) on a free lane, as soon as one is free.
    func submit(_ job: @escaping (SftpSession) -> Void) {
        guard width > 1 else { return job(primary) }
        if lanes.isEmpty && !full {
            guard let first = held else {
                held = job
                return
            }
            held = nil
            primary.beginTurns()
            give(first)
        }
        give(job)
    }

    private func give(_ job: @escaping (SftpSession) -> Void) {
        condition.lock()
        if busy == lanes.count && lanes.count < width && !full {
            condition.unlock()
            // Opened by the caller's thread alone: libssh2 opens one channel at a time on a session.
            let lane = primary.sibling().map(Lane.init)
            condition.lock()
            if let lane {
                let thread = JoinableThread(runInlineIfNoThread: false) { [self] in run(lane) }
                if thread.isStarted {
                    lane.thread = thread
                    lanes.append(lane)
                } else {
                    full = true
                    condition.unlock()
                    lane.sftp.close()
                    condition.lock()
                }
            } else {
                full = true
            }
        }
        guard !lanes.isEmpty else {
            // No lane could be had: this file is copied here, on the caller's channel, as without lanes.
            condition.unlock()
            return job(primary)
        }
        while busy == lanes.count { condition.wait() }
        guard let lane = lanes.first(where: { $0.job == nil }) else {
            condition.unlock()
            return job(primary)
        }
        lane.job = job
        busy += 1
        condition.broadcast()
        condition.unlock()
    }

    private func run(_ lane: Lane) {
        condition.lock()
        while true {
            while lane.job == nil && !ending { condition.wait() }
            guard let job = lane.job else { break }
            condition.unlock()
            job(lane.sftp)
            condition.lock()
            lane.job = nil
            busy -= 1
            condition.broadcast()
        }
        condition.unlock()
        // Each lane closes its own channel: the closes overlap as the copies did.
        lane.sftp.close()
    }

    /// Waits until every file handed over is copied (the held one copied here).
    func drain() {
        if let first = held {
            held = nil
            first(primary)
        }
        condition.lock()
        while busy > 0 { condition.wait() }
        condition.unlock()
    }

    /// Waits for every file, closes the lanes and gives the caller's channel the connection to itself again.
    func finish() {
        drain()
        condition.lock()
        ending = true
        condition.broadcast()
        let threads = lanes.compactMap(\.thread)
        condition.unlock()
        for thread in threads { thread.join() }
        lanes = []
        primary.endTurns()
    }
}
