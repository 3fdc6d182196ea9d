// SSHConnection: a logged-in connection (with its jump sessions and bridges). Runs commands and shells on the
// innermost session and closes everything innermost first.
import CLibSSH2
import Foundation

public final class SSHConnection {
    var sessions: [Session] = []
    var bridges: [JumpBridge] = []
    private var closed = false
    /// Keys to pin and passwords remembered while connecting; the caller saves them on the host records.
    public internal(set) var outcome = ConnectOutcome()

    init() {}

    deinit { close() }

    var target: Session {
        // connect() only returns a connection once every hop has a session.
        sessions[sessions.count - 1]
    }

    func finishSetup() {
        target.setTimeout(seconds: 0)
    }

    public var isClosed: Bool { closed }

    /// For a connection kept warm between commands (the TUI): sends a keepalive on the target session if one is
    /// due and returns the seconds until the next. Jump sessions keep themselves alive on their bridge threads.
    @discardableResult
    public func keepAlive() -> Int {
        guard !closed, !sessions.isEmpty else { return 0 }
        return target.keepaliveTick()
    }

    /// Disconnects every hop, innermost first; safe to call twice.
    public func close() {
        guard !closed else { return }
        closed = true
        for index in sessions.indices.reversed() {
            // The bridge that carries session `index` belongs to the outer session `index - 1`.
            sessions[index].disconnect()
            if index >= 1, index - 1 < bridges.count {
                bridges[index - 1].stop()
            }
        }
        // A bridge whose inner session never came up (its creation failed) is stopped here.
        for bridge in bridges.reversed() { bridge.stop() }
        bridges.removeAll()
        sessions.removeAll()
    }
}
