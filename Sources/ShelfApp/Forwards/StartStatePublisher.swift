// StartStatePublisher: every `forward start` — twice a second writes the running rules' state to its own file in
// the runtime directory (`forward-start-PID.json`, the supervisor's format, so one reader serves both), where the
// TUI finds it: rules started from another terminal, and those a TUI started and handed over when it quit, show
// as running in every TUI. Removed when the forwards stop.
import Foundation
import ShelfSSH
import ShelfSystem

final class StartStatePublisher: @unchecked Sendable {
    private let path: String
    private let timer: DispatchSourceTimer
    /// Serial: `stop()` waits out a write in progress, so no file is left behind after it.
    private let queue = DispatchQueue(label: "sshelf.forward-state")

    init(hostName: String, pool: ForwardPool, fromTUI: Bool, context: AppContext) {
        let path = SupervisorFiles.startStatePath(context.locations, pid: getpid())
        self.path = path
        let started = Date()
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler {
            let rules = pool.status().map { RuleState(status: $0, host: hostName) }
            let state = SupervisorState(pid: getpid(), startedAt: started, updatedAt: Date(), rules: rules,
                                        fromTUI: fromTUI ? true : nil)
            do {
                try PrivateFiles.ensureDirectory(context.locations.runtimeDirectory)
                try SupervisorFiles.write(state, to: path)
            } catch {
                context.warn("could not write the forward state file: \(error)")
            }
        }
        timer.schedule(deadline: .now(), repeating: 0.5)
        timer.resume()
    }

    /// Stops publishing and removes the file: a missing file means "not running".
    func stop() {
        queue.sync { timer.cancel() }
        try? FileManager.default.removeItem(atPath: path)
    }
}
