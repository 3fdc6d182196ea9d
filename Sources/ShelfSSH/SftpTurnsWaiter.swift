// SftpTurnsWaiter: one caller of SftpTurns asleep until its call can go on — a condition variable of its own on the
// turns' mutex, and what was true of its channel when it fell asleep, so that a step that read from the socket wakes
// it only when something came for it: data queued on its channel (libssh2 keeps every channel's packets in the
// session's list until that channel's call takes them: `libssh2_poll_channel_read` looks there), room in the
// server's window to send into, or the server's end of file. A caller without a channel (opening a channel, closing
// one: what it waits for is not data) is woken by anything read.
import CLibSSH2
import FoundationEssentials
import Glibc

final class SftpTurnsWaiter {
    /// The caller's SFTP channel; nil: woken after any step that read from the socket.
    let channel: OpaquePointer?
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// Whether someone woke it since it fell asleep (a wait that ends without it is the fallback's).
    var woken = false
    /// Waiting for the caller holding a half-sent packet to finish (not for its channel).
    var forOwner = false
    private var dataQueued = false
    private var window: UInt = 0
    private var endOfFile: Int32 = 0

    init(channel: OpaquePointer?) {
        self.channel = channel
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        // Timed waits measure on the monotonic clock: a change of the wall clock neither wakes nor strands them.
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
    }

    /// Notes the channel's state as the caller falls asleep (the turns' mutex held).
    func noteChannel() {
        woken = false
        guard let channel else { return }
        dataQueued = libssh2_poll_channel_read(channel, 0) != 0
        window = libssh2_channel_window_write_ex(channel, nil)
        endOfFile = libssh2_channel_eof(channel)
    }

    /// Whether something came for this caller since `noteChannel` (the turns' mutex held).
    var canGoOn: Bool {
        guard let channel else { return true }
        if !dataQueued && libssh2_poll_channel_read(channel, 0) != 0 { return true }
        return libssh2_channel_window_write_ex(channel, nil) != window || libssh2_channel_eof(channel) != endOfFile
    }

    /// Sleeps on `mutex` (held) until woken or `seconds` passed; false when the time ran out unwoken.
    func sleep(on mutex: UnsafeMutablePointer<pthread_mutex_t>, seconds: Int) -> Bool {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        var deadline = now
        deadline.tv_sec += seconds
        while !woken {
            if pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT { return woken }
        }
        return true
    }

    /// Wakes the caller (the turns' mutex held).
    func wake() {
        woken = true
        pthread_cond_signal(condition)
    }
}
