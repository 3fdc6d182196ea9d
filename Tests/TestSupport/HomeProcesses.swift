// HomeProcesses: the processes still running with a test home's SSHELF_HOME — keepers, agents and forward daemons
// sshelf started and the test did not stop, or a command left running when the test ended — found in
// /proc/PID/environ and ended with the home, so a test leaves no daemon of its own behind.
import Foundation

public enum HomeProcesses {
    /// The processes whose environment sets SSHELF_HOME to `home` (the tests run as root and read every one).
    public static func running(home: String) -> [pid_t] {
        let wanted = Data(("SSHELF_HOME=" + home).utf8)
        let mine = getpid()
        return ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { entry in
            guard let pid = pid_t(entry), pid != mine,
                let file = FileHandle(forReadingAtPath: "/proc/\(entry)/environ")
            else { return nil }
            defer { try? file.close() }
            // Read to the end: proc files report no size. A zombie's environment reads empty.
            let environment = (try? file.readToEnd()) ?? Data()
            return environment.split(separator: 0).contains { $0 == wanted } ? pid : nil
        }
    }

    /// Ends them: SIGTERM, and SIGKILL for whatever is still there after a grace period.
    public static func end(home: String) {
        let pids = running(home: home)
        guard !pids.isEmpty else { return }
        for pid in pids { kill(pid, SIGTERM) }
        if !waitUntil(deadline: 5, { running(home: home).isEmpty }) {
            for pid in running(home: home) { kill(pid, SIGKILL) }
        }
    }
}
