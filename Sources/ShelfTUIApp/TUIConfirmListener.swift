// TUIConfirmListener: the TUI's end of the agent's confirm channel — a 0600 socket (ConfirmChannel.path) that the
// most recently started TUI owns. A thread accepts the agent's questions (same uid only), posts each as a dialog,
// and notices when the agent stops waiting; the run loop writes the answer. Only the thread closes descriptors. The
// bridge's unlock guard asks here too (an unlock request): the app's passphrase dialog answers it.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfServices
import ShelfSystem
import ShelfUI

#if canImport(Glibc)
import Glibc
#endif

final class TUIConfirmListener: @unchecked Sendable {
    private struct Open {
        var fd: Int32
        var answered = false
    }

    private let mailbox: Mailbox
    private let path: String
    private let listener: Int32
    private let inode: ino_t
    private let wake: [Int32]
    private let lock = Lock()
    private var open: [UUID: Open] = [:]
    private var stopping = false
    private var thread: JoinableThread?

    /// An unlock request (the bridge's guard for an ssh): the app asks for the passphrase and answers it.
    private let onUnlock: @Sendable (String, @escaping @Sendable (Bool) -> Void) -> Void

    /// Nil when the socket cannot be made (then the agent finds no TUI and refuses, as without one).
    init?(
        locations: DataLocations, mailbox: Mailbox,
        onUnlock: @escaping @Sendable (String, @escaping @Sendable (Bool) -> Void) -> Void
    ) {
        self.mailbox = mailbox
        self.onUnlock = onUnlock
        path = ConfirmChannel.path(locations)
        var pair: [Int32] = [-1, -1]
        guard
            let (fd, node) = try? PrivateSocket.listen(
                at: path, directory: ConfirmChannel.directory(locations), within: locations.runtimeDirectory,
                backlog: 4),
            CloseOnExec.pipe(&pair) == 0
        else { return nil }
        listener = fd
        inode = node
        wake = pair
        thread = JoinableThread(runInlineIfNoThread: false) { [self] in loop() }
    }

    /// The user's answer; the agent reads it and closes its end.
    func answer(_ id: UUID, allow: Bool) {
        lock.lock()
        if var entry = open[id], !entry.answered {
            var byte = UInt8(ascii: allow ? "y" : "n")
            _ = send(entry.fd, &byte, 1, Int32(MSG_NOSIGNAL))
            entry.answered = true
            open[id] = entry
        }
        lock.unlock()
        poke()
    }

    func stop() {
        lock.lock()
        stopping = true
        lock.unlock()
        poke()
        thread?.join()
        close(wake[0])
        close(wake[1])
    }

    private func poke() {
        var byte: UInt8 = 1
        _ = write(wake[1], &byte, 1)
    }

    private func loop() {
        defer {
            lock.lock()
            for entry in open.values { close(entry.fd) }
            open.removeAll()
            lock.unlock()
            close(listener)
            if PrivateSocket.ownsPath(path, inode: inode) { unlink(path) }
        }
        while true {
            lock.lock()
            if stopping {
                lock.unlock()
                return
            }
            for (id, entry) in open where entry.answered {
                close(entry.fd)
                open[id] = nil
            }
            let watched = open.map { ($0.key, $0.value.fd) }
            lock.unlock()
            var fds = [
                pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake[0], events: Int16(POLLIN), revents: 0),
            ]
            fds += watched.map { pollfd(fd: $0.1, events: Int16(POLLIN), revents: 0) }
            guard poll(&fds, nfds_t(fds.count), 1000) >= 0 || errno == EINTR else { return }
            if fds[1].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                _ = read(wake[0], &drain, drain.count)
            }
            for (index, (id, fd)) in watched.enumerated() where fds[index + 2].revents != 0 {
                var byte: UInt8 = 0
                guard recv(fd, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT)) <= 0 else { continue }
                // The agent gave up (its deadline) or went away: the dialog closes.
                lock.lock()
                let pending = open[id].map { !$0.answered } ?? false
                if pending {
                    close(fd)
                    open[id] = nil
                }
                lock.unlock()
                if pending { mailbox.post(.agentQuestionEnded(id)) }
            }
            if fds[0].revents != 0 { accept() }
        }
    }

    private func accept() {
        // Close-on-exec in the accept itself: a connect's ProxyCommand may be forked on another thread meanwhile.
        let fd = CloseOnExec.accept(listener)
        guard fd >= 0 else { return }
        guard PrivateSocket.peerIsUs(fd), let (question, unlock) = readQuestion(fd) else {
            close(fd)
            return
        }
        let id = UUID()
        lock.lock()
        open[id] = Open(fd: fd)
        lock.unlock()
        if unlock {
            onUnlock(Display.safe(question)) { [weak self] unlocked in self?.answer(id, allow: unlocked) }
        } else {
            mailbox.post(.agentQuestion(AgentQuestion(id: id, text: Display.safe(question))))
        }
    }

    /// `u32 length, UTF-8 text` within two seconds (the length's top bit: an unlock request); nil for anything else.
    private func readQuestion(_ fd: Int32) -> (String, unlock: Bool)? {
        PrivateSocket.setTimeout(fd, seconds: 2, option: SO_RCVTIMEO)
        func exactly(_ count: Int) -> [UInt8]? {
            var bytes = [UInt8](repeating: 0, count: count)
            var got = 0
            while got < count {
                let n = bytes.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + got, count - got, 0) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return nil }
                got += n
            }
            return bytes
        }
        guard let header = exactly(4) else { return nil }
        let word = header.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let length = Int(word & ~ConfirmChannel.unlockFlag)
        guard length > 0, length <= ConfirmChannel.maximumQuestion, let body = exactly(length),
            let text = String(validating: body, as: UTF8.self)
        else { return nil }
        return (text, word & ConfirmChannel.unlockFlag != 0)
    }
}
