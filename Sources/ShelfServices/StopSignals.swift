// StopSignals: SIGINT and SIGTERM as a call, for the agent, the forward supervisor and `forward start`.
import Dispatch
import FoundationEssentials
import Glibc

/// Turns SIGINT and SIGTERM into a call (on a dispatch queue, not in a signal handler), and back on cancel.
public final class StopSignals {
    private let sources: [DispatchSourceSignal]

    /// Returns once both signals reach `action`. libdispatch installs its own handler only when it registers a
    /// source, asynchronously after `resume()`; until then the disposition is SIG_IGN and a signal is lost — as
    /// it was when a script read "press Ctrl-C to stop" and sent SIGTERM at once on a busy machine.
    public init(_ action: @escaping @Sendable () -> Void) {
        let registered = DispatchSemaphore(value: 0)
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler(handler: action)
            source.setRegistrationHandler { registered.signal() }
            source.resume()
            return source
        }
        for _ in sources { registered.wait() }
    }

    public func cancel() {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
