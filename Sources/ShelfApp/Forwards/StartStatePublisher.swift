// StartStatePublisher: `forward start --tui-state FILE` — twice a second writes the running rules' state to
// FILE in the supervisor's format (so one reader serves both), and stops the forwards once the parent that
// started it (the TUI) is gone, so a crashed TUI leaves no forward behind.
import Foundation
import ShelfSSH

final class StartStatePublisher: @unchecked Sendable {
    private let path: String
    private let timer: DispatchSourceTimer
    /// Serial: `stop()` waits out a write in progress, so no file is left behind after it.
    private let queue = DispatchQueue(label: "sshelf.forward-state")

    init(path: String, hostName: String, pool: ForwardPool, context: AppContext) {
        self.path = path
        let parent = getppid()
        let started = Date()
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [path] in
            let rules = pool.status().map { RuleState(status: $0, host: hostName) }
            let state = SupervisorState(pid: getpid(), startedAt: started, updatedAt: Date(), rules: rules)
            do { try SupervisorFiles.write(state, to: path) } catch {
                context.warn("could not write the forward state file: \(error)")
            }
            if getppid() != parent { pool.stop() }
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
