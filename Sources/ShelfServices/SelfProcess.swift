// SelfProcess: this program as the children it starts run it (its own path) and whether it runs on a terminal.
import FoundationEssentials
import Glibc

public enum SelfProcess {
    /// This program's own path, for the children it runs (the agent, `sshelf forward start` for a rule started
    /// with `t` in the TUI).
    public static var path: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// This program's path when it is sshelf itself (not a test runner that links its libraries), read once: what the
    /// ssh_config bridge's unlock guard runs.
    public static let sshelfPath: String? = {
        let own = path
        return own.split(separator: "/").last?.hasPrefix("sshelf") == true ? own : nil
    }()

    /// True when both stdin and stdout are a terminal (otherwise `sshelf` prints help instead of opening the TUI).
    public static var isInteractive: Bool { isatty(0) == 1 && isatty(1) == 1 }
}
