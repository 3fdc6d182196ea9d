// ServiceUnit: the systemd user unit `service install` writes (ExecStart: this binary's absolute path; no secret, no
// credential, only SSHELF_HOME when one is set) and where it goes, and whether a `systemd --user` manager runs here
// to enable it.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfSystem

public enum ServiceUnit {
    public static let name = "sshelf.service"

    /// `$XDG_CONFIG_HOME/systemd/user/sshelf.service`, else `~/.config/systemd/user/sshelf.service`.
    public static func path(environment: [String: String], home: String) -> String {
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.config"
        return config + "/systemd/user/" + name
    }

    /// The unit's text. `binary` is absolute; a `SSHELF_HOME` in `environment` is carried so the service serves the
    /// same data as the shell that installed it.
    public static func text(binary: String, environment: [String: String]) -> String {
        var lines = [
            "# Written by 'sshelf service install'; 'sshelf service uninstall' removes it.",
            "[Unit]",
            "Description=sshelf: the agent, autostart forwards and background sync",
            "",
            "[Service]",
            "Type=simple",
            "ExecStart=\(quoted(binary)) service run",
            "Restart=on-failure",
            "RestartSec=5",
        ]
        if let home = environment["SSHELF_HOME"], !home.isEmpty {
            lines.append("Environment=\(quoted("SSHELF_HOME=" + home))")
        }
        lines += ["", "[Install]", "WantedBy=default.target", ""]
        return lines.joined(separator: "\n")
    }

    /// A word as systemd reads it: `%` doubled (a specifier otherwise), quoted with `\` escapes when it has a space,
    /// a quote or a backslash.
    static func quoted(_ word: String) -> String {
        let escaped = word.replacing("%", with: "%%")
        let plain = !escaped.contains(where: { " \t\"'\\".contains($0) })
        if plain { return escaped }
        return "\"" + escaped.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
    }

    /// Whether a `systemd --user` manager answers here: its private socket in the runtime folder.
    public static func userManagerRuns(environment: [String: String]) -> Bool {
        guard let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") else { return false }
        var info = stat()
        return stat(runtime + "/systemd/private", &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK
    }

    /// `systemctl --user ARGS`: nil when it ran fine, else what it said.
    public static func systemctl(_ arguments: [String], environment: [String: String]) -> String? {
        guard
            let output = ChildProcess.run(
                ["/usr/bin/env", "systemctl", "--user"] + arguments, environment: environment, timeout: 60)
        else { return "systemctl could not be started" }
        if output.status == 0 { return nil }
        let text = String(decoding: output.stderr + output.stdout, as: UTF8.self)
        return text.isEmpty ? "systemctl exited with status \(output.status)" : text
    }
}
