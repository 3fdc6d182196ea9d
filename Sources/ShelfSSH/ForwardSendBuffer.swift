// ForwardSendBuffer: while a forward engine runs, libssh2's sends go here (its LIBSSH2_CALLBACK_SEND) instead of
// straight to the session socket, and the engine writes them with one send() per pass of its loop.
//
// Why: libssh2 1.10 sends every SSH packet (at most 32 KiB of channel data) with its own send() on a TCP_NODELAY
// socket. sshd is faster than a libssh2 client, so it woke up, read and processed one packet at a time — about
// 30,000 reads and as many wake-ups per GiB, where an OpenSSH client's batches cost it a third of that — and spent
// about 25 % more CPU per GiB serving sshelf than serving `ssh`. Collected, the packets of one pass (up to 256 KiB
// per connection) reach sshd in one write. The bytes and their order are exactly libssh2's; only the moment they
// leave changes, and never past the end of the pass that produced them.
import CLibSSH2
import FoundationEssentials
import Glibc

final class ForwardSendBuffer {
    /// libssh2 is told "would block" only when this much is waiting (the socket took none of it).
    static let defaultCapacity = 1 << 20
    /// The smallest capacity: one whole libssh2 packet (at most 35,000 bytes) always fits in an empty buffer.
    static let minimumCapacity = 64 * 1024
    /// Written at once when a pass produces this much, without waiting for the pass to end.
    static let flushThreshold = 256 * 1024

    private let capacity: Int
    private let storage: UnsafeMutableRawBufferPointer
    private var start = 0
    private var end = 0
    private let socket: Int32
    /// errno of a send that failed (the session is then lost): every later send reports it to libssh2.
    private(set) var failure: Int32 = 0

    /// `capacity` other than the default only in tests (a small one makes libssh2 see "would block" often).
    init(socket: Int32, capacity: Int = ForwardSendBuffer.defaultCapacity) {
        self.socket = socket
        self.capacity = max(capacity, Self.minimumCapacity)
        storage = .allocate(byteCount: self.capacity, alignment: 16)
    }

    deinit { storage.deallocate() }

    var isEmpty: Bool { start == end }

    /// libssh2's send: takes the whole packet (or part of a half-sent one) and answers as send() would.
    func take(_ bytes: UnsafeRawPointer, count: Int) -> Int {
        guard failure == 0 else { return -Int(failure) }
        if end + count > capacity {
            flush()
            if start > 0 {
                let base = storage.baseAddress!  // allocated in init, never nil
                memmove(base, base + start, end - start)
                end -= start
                start = 0
            }
            guard end + count <= capacity else { return -Int(EAGAIN) }
        }
        (storage.baseAddress! + end).copyMemory(from: bytes, byteCount: count)
        end += count
        if end - start >= min(Self.flushThreshold, capacity / 2) { flush() }
        return count
    }

    /// Writes what the socket takes now; true when nothing is left waiting.
    @discardableResult
    func flush() -> Bool {
        while start < end, failure == 0 {
            let written = Glibc.send(socket, storage.baseAddress! + start, end - start, Int32(MSG_NOSIGNAL))
            if written > 0 {
                start += written
            } else if written < 0, errno == EAGAIN || errno == EINTR {
                return false
            } else {
                failure = written == 0 ? EPIPE : errno
            }
        }
        if start == end {
            start = 0
            end = 0
        }
        return start == end
    }

    /// Sends everything left, waiting for the socket up to `timeout` seconds (the engine is leaving).
    func drain(timeout: Double) {
        let deadline = Date().addingTimeInterval(timeout)
        while !flush(), failure == 0, Date() < deadline {
            var pfd = pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)
            _ = poll(&pfd, 1, 100)
        }
    }

    /// Routes `session`'s sends here until `uninstall`. The buffer hangs off the session's context, never in place of
    /// it: the receive callback (and any other) reads the abstract pointer as the SessionContext, and a buffer put
    /// there instead had its fields overwritten by the receive time.
    func install(on session: Session) -> Installed {
        session.context.sendBuffer = self
        let callback:
            @convention(c) (
                libssh2_socket_t, UnsafeRawPointer?, Int, Int32, UnsafeMutablePointer<UnsafeMutableRawPointer?>?
            ) -> Int = { _, buffer, length, _, abstract in
                guard let buffer, let pointer = abstract?.pointee,
                    let sendBuffer = Unmanaged<SessionContext>.fromOpaque(pointer).takeUnretainedValue().sendBuffer
                else { return -Int(EINVAL) }
                return sendBuffer.take(buffer, count: length)
            }
        let previous = libssh2_session_callback_set(
            session.raw, LIBSSH2_CALLBACK_SEND, unsafeBitCast(callback, to: UnsafeMutableRawPointer.self))
        return Installed(send: previous)
    }

    /// Puts libssh2's own send back.
    func uninstall(_ saved: Installed, from session: Session) {
        _ = libssh2_session_callback_set(session.raw, LIBSSH2_CALLBACK_SEND, saved.send)
        session.context.sendBuffer = nil
    }

    struct Installed {
        let send: UnsafeMutableRawPointer?
    }
}
