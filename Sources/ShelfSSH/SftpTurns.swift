// SftpTurns: several SFTP channels of one connection used from several threads at once (a copy's lanes, each with a
// file of its own: FleetCopyLanes). libssh2's session is safe in one thread at a time only, so every SFTP call takes
// the connection in turn, non-blocking: a call whose answer has not come gives the connection back at once, and its
// caller waits — one of the waiting callers polls the socket, the others sleep until a step that read from it finds
// something for their own channel (SftpTurnsWaiter) — then tries again. Waking only that caller, not all of them,
// is what keeps many small files cheap: each answer read used to wake every lane to try its call again. libssh2's
// sends go to a send buffer (ForwardSendBuffer), as in the forward engine, so one channel's half-sent packet never
// holds up another's request, and libssh2 1.10 never takes another call's packet for the rest of a half-sent one;
// when the buffer is full that call alone may run until its packet is out.
import CLibSSH2
import FoundationEssentials
import Glibc
import ShelfCore

final class SftpTurns: @unchecked Sendable {
    /// A sleeping caller tries again after this long even unwoken: a safety net only (a wake the check missed costs
    /// this much time, never a hang). `missedWakes` counts the times it was needed.
    static let fallbackSeconds = 1

    private let session: Session
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let sendBuffer: ForwardSendBuffer
    private let installed: ForwardSendBuffer.Installed
    /// Each caller's waiter, made on its first call; `asleep`: those sleeping now, in the order they fell asleep.
    private var waiters: [ObjectIdentifier: SftpTurnsWaiter] = [:]
    private var asleep: [SftpTurnsWaiter] = []
    /// Callers in poll() on the socket now (the socket's owner of a half-sent packet may poll beside another).
    private var pollers = 0
    /// Whether the poll running now watches for room to send as well.
    private var pollWatchesOutput = false
    /// The caller whose packet libssh2 holds half-sent: nobody else may call until it is out.
    private var owner: ObjectIdentifier?
    /// A call failed without an answer from the server: the connection is gone for every channel.
    private var lostFlag = false
    /// Sleepers something had come for that the step which read it did not wake (another wake, or the fallback,
    /// found them): a wake the check missed. Only counted (SSHELF_TEST_SFTP_WAKES): a missed wake costs time.
    private(set) var missedWakes = 0
    private var wakes = 0

    /// Puts the session into non-blocking mode with its sends buffered, until `end`.
    init(_ session: Session) {
        self.session = session
        pthread_mutex_init(mutex, nil)
        session.setBlocking(false)
        sendBuffer = ForwardSendBuffer(socket: session.socket)
        installed = sendBuffer.install(on: session)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Sends what is left and gives the session back its own send and blocking mode (no caller is left).
    func end() {
        sendBuffer.drain(timeout: 2)
        sendBuffer.uninstall(installed, from: session)
        session.setBlocking(true)
        SftpTurnsReport.write(wakes: wakes, missed: missedWakes)
    }

    var lost: Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return lostFlag
    }

    func markLost() {
        pthread_mutex_lock(mutex)
        lostFlag = true
        // Every sleeper's next call fails at once: none waits for the fallback.
        for waiter in asleep { waiter.wake() }
        asleep.removeAll()
        pthread_mutex_unlock(mutex)
    }

    /// Runs `body` with the connection to itself (for reading libssh2's session-wide error text).
    func alone<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    /// Calls `body` (one libssh2 call for `caller`'s SFTP `channel`; nil when what it waits for is not data on a
    /// channel) until it is no longer `wouldBlock`, waiting for the socket in between, and returns its answer.
    func run<T>(for caller: AnyObject, channel: OpaquePointer?, _ body: () -> T, wouldBlock: (T) -> Bool) -> T {
        let me = ObjectIdentifier(caller)
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        let waiter = waiter(for: me, channel: channel)
        var polledForInput = false
        while true {
            while let owner, owner != me {
                // Whoever this caller leaves to wait for must not be left without someone polling the socket.
                handOverPolling()
                sleep(waiter, forOwner: true)
            }
            let before = session.context.received
            let result = body()
            sendBuffer.flush()
            let read = session.context.received != before
            if read {
                wakeThoseWithSomething()
            } else if polledForInput {
                // The socket had something and this call did not read it: let every sleeper try (the old way).
                wakeEveryone()
            }
            polledForInput = false
            guard wouldBlock(result) else {
                if owner == me { clearOwner() }
                handOverPolling()
                return result
            }
            if libssh2_session_block_directions(session.raw) & LIBSSH2_SESSION_BLOCK_OUTBOUND != 0
                && !sendBuffer.isEmpty
            {
                owner = me
            } else if owner == me {
                clearOwner()
            }
            // What was read may be the start of this caller's answer: it tries again at once.
            if read { continue }
            if pollers > 0 && !(owner == me && !pollWatchesOutput) {
                sleep(waiter, forOwner: false)
                continue
            }
            pollers += 1
            var events = Int16(POLLIN)
            if !sendBuffer.isEmpty { events |= Int16(POLLOUT) }
            let watchedOutput = pollWatchesOutput
            pollWatchesOutput = events & Int16(POLLOUT) != 0
            var descriptor = pollfd(fd: session.socket, events: events, revents: 0)
            pthread_mutex_unlock(mutex)
            // A bound on the wait only as a safety net: every retry is cheap, and nothing is lost by one.
            _ = poll(&descriptor, 1, 1000)
            pthread_mutex_lock(mutex)
            pollers -= 1
            pollWatchesOutput = watchedOutput && pollers > 0
            polledForInput = descriptor.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0
            if descriptor.revents & Int16(POLLOUT) != 0 {
                sendBuffer.flush()
                // The caller holding a half-sent packet is the one room to send was for.
                if let owner, owner != me, let holder = waiters[owner] { wake(holder) }
            }
        }
    }

    // MARK: sleeping and waking (the mutex held)

    private func waiter(for caller: ObjectIdentifier, channel: OpaquePointer?) -> SftpTurnsWaiter {
        if let known = waiters[caller], known.channel == channel { return known }
        let made = SftpTurnsWaiter(channel: channel)
        waiters[caller] = made
        return made
    }

    private func sleep(_ waiter: SftpTurnsWaiter, forOwner: Bool) {
        waiter.forOwner = forOwner
        waiter.noteChannel()
        asleep.append(waiter)
        let woken = waiter.sleep(on: mutex, seconds: Self.fallbackSeconds)
        if !woken {
            noteMissed(waiter)
            asleep.removeAll { $0 === waiter }
        }
    }

    private func wake(_ waiter: SftpTurnsWaiter, forData: Bool = false) {
        guard let index = asleep.firstIndex(where: { $0 === waiter }) else { return }
        if !forData { noteMissed(waiter) }
        asleep.remove(at: index)
        wakes += 1
        waiter.wake()
    }

    /// After a step read from the socket: wakes each sleeper something came for (nothing else has changed for
    /// the others: their channels' answers are still to come).
    private func wakeThoseWithSomething() {
        for waiter in asleep where !waiter.forOwner && waiter.canGoOn { wake(waiter, forData: true) }
    }

    /// A sleeper woken for another reason (or by the fallback) that had something there already: the step that
    /// read it should have woken it, and did not.
    private func noteMissed(_ waiter: SftpTurnsWaiter) {
        if !waiter.forOwner && waiter.channel != nil && waiter.canGoOn { missedWakes += 1 }
    }

    private func wakeEveryone() {
        for waiter in asleep { wake(waiter) }
    }

    private func clearOwner() {
        owner = nil
        for waiter in asleep where waiter.forOwner { wake(waiter) }
    }

    /// With nobody polling, one sleeper (the holder of a half-sent packet first) takes the poll over.
    private func handOverPolling() {
        guard pollers == 0 else { return }
        let holder = owner.flatMap { waiters[$0] }
        if let holder, asleep.contains(where: { $0 === holder }) {
            wake(holder)
        } else if let next = asleep.first(where: { !$0.forOwner }) {
            wake(next)
        }
    }
}

/// Test suites only (`SSHELF_TEST_SFTP_WAKES=1`): each copy with several channels says on stderr how many wakes it
/// gave and how many the check missed (a sleeper the fallback woke with something there for it), so a test can
/// assert that no lane waited for the fallback.
enum SftpTurnsReport {
    static let enabled = getenv("SSHELF_TEST_SFTP_WAKES").map { String(cString: $0) == "1" } ?? false

    static func write(wakes: Int, missed: Int) {
        guard enabled else { return }
        let line = "sftp turns: \(wakes) wakes, \(missed) missed\n"
        _ = line.withCString { Glibc.write(STDERR_FILENO, $0, strlen($0)) }
    }
}
