// TmuxWindows: sessions in tmux windows when sshelf runs inside tmux — one host in a new window, several in one
// tiled window (a pane each, its host named in the pane's border by sshelf, not by the server), and broadcast
// (tmux's synchronize-panes) on such a window, which the border of every pane shows while it is on and the release
// log records (which hosts, when on, when off).
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfOperations
import ShelfSystem
import ShelfVault

public struct TmuxWindows: Sendable {
    /// The most panes one window gets: beyond this tmux has no room for a readable pane on most screens.
    public static let maxPanes = 16
    /// The store setting (this device's only) that makes `connect` and the TUI's Enter open a window inside tmux.
    public static let windowSetting = "tmux.window"

    let tmux: String
    let environment: [String: String]

    /// Inside tmux (`$TMUX` set), else nil.
    public init?(environment: [String: String]) {
        guard let socket = environment["TMUX"], !socket.isEmpty else { return nil }
        self.environment = environment
        let folders = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        tmux = folders.map { $0 + "/tmux" }.first { access($0, X_OK) == 0 } ?? "/usr/bin/tmux"
    }

    /// The words that say why a window cannot be opened here.
    public static let notInside = ShelfError(
        .usage, "not inside tmux: a tmux window can only be opened from a terminal tmux runs",
        hint: "start tmux first, or connect here without --window")

    /// Opens `hosts` (name and id) — one in a new window, several in one tiled window — each pane running
    /// `sshelf connect` on its host in this terminal's way. Returns the window's id (`@N`).
    @discardableResult
    public func open(_ hosts: [(name: String, id: UUID)], sshelf: String) throws -> String {
        guard !hosts.isEmpty else { throw ShelfError(.usage, "no hosts to open") }
        guard hosts.count <= Self.maxPanes else {
            throw ShelfError(
                .usage, "\(hosts.count) hosts are more than one tmux window holds (at most \(Self.maxPanes) panes)",
                hint: "open a smaller group or fewer marked hosts")
        }
        let name = hosts.count == 1 ? hosts[0].name : "\(hosts.count) hosts"
        // The window opens on tmux's default shell for a moment: a session that cannot start (a host down, a key
        // refused) must leave its pane with the reason on screen, so the window keeps failed panes before the first
        // session starts in it (one that ends at once would otherwise take the window with it).
        let window = try run(["new-window", "-P", "-F", "#{window_id}", "-n", Display.safe(name)])
            .trimmingSpacesAndNewlines()
        guard window.hasPrefix("@") else { throw ShelfError(.failure, "tmux did not say which window it opened") }
        try run(["set-option", "-w", "-t", window, "remain-on-exit", "failed"])
        try run(
            ["respawn-pane", "-k", "-t", window] + passed
                + ["--", sshelf, "connect", "--no-window", "id:" + hosts[0].id.uuidString.lowercased()])
        var panes = [try run(["display-message", "-p", "-t", window, "#{pane_id}"]).trimmingSpacesAndNewlines()]
        for host in hosts.dropFirst() {
            let pane = try run(
                ["split-window", "-d", "-P", "-F", "#{pane_id}", "-t", window] + passed
                    + ["--", sshelf, "connect", "--no-window", "id:" + host.id.uuidString.lowercased()])
            panes.append(pane.trimmingSpacesAndNewlines())
            // Tiled after each split, so the next one has room.
            try run(["select-layout", "-t", window, "tiled"])
        }
        // The name shown is sshelf's (a pane option the remote side cannot set), never the pane's title.
        for (pane, host) in zip(panes, hosts) {
            try run(["set-option", "-p", "-t", pane, "@sshelf-host", Display.safe(host.name)])
        }
        if hosts.count > 1 {
            try run(["set-option", "-w", "-t", window, "@sshelf-hosts", hosts.map(\.name).joined(separator: ",")])
            try run(["set-option", "-w", "-t", window, "pane-border-status", "top"])
            try run(["set-option", "-w", "-t", window, "pane-border-format", Self.borderFormat(count: hosts.count)])
        }
        return window
    }

    /// Every pane's border: its host, and while broadcast is on, a banner naming how many hosts get every key.
    static func borderFormat(count: Int) -> String {
        " #{?pane_synchronized,#[reverse bold] BROADCAST to \(count) hosts #[default] ,}#{@sshelf-host} "
    }

    /// The hosts of a window sshelf opened for several hosts (nil: not such a window).
    public func hosts(window: String) throws -> [String]? {
        let text = try run(["show-options", "-w", "-v", "-q", "-t", window, "@sshelf-hosts"])
            .trimmingSpacesAndNewlines()
        return text.isEmpty ? nil : text.split(separator: ",").map(String.init)
    }

    /// The window this terminal is in (`$TMUX_PANE`'s), or `window` when given.
    public func window(_ given: String?) throws -> String {
        if let given { return given }
        var arguments = ["display-message", "-p"]
        if let pane = environment["TMUX_PANE"] { arguments += ["-t", pane] }
        return try run(arguments + ["#{window_id}"]).trimmingSpacesAndNewlines()
    }

    public func isBroadcasting(window: String) throws -> Bool {
        try run(["show-options", "-w", "-v", "-t", window, "synchronize-panes"]).trimmingSpacesAndNewlines() == "on"
    }

    /// Turns broadcast on or off in `window`, with its release-log entry written first: nothing is sent to many hosts
    /// at once that the log does not show.
    public func setBroadcast(_ on: Bool, window: String, hosts: [String], log: (ReleaseEntry) throws -> Void) throws {
        try log(
            ReleaseEntry(
                what: on ? "broadcast on" : "broadcast off", item: "tmux window \(window)", by: "tmux",
                host: hosts.joined(separator: ","), detail: "\(hosts.count) hosts"))
        try run(["set-option", "-w", "-t", window, "synchronize-panes", on ? "on" : "off"])
    }

    /// Variables the sessions in the new panes need, handed over with `-e` (the tmux server's own environment may be
    /// another's). Only the ones sshelf reads: argv is visible to every local user, and other variables may hold
    /// someone's token.
    var passed: [String] {
        let names = [
            "HOME", "PATH", "LANG", "LC_ALL", "NO_COLOR", "SSH_AUTH_SOCK", "LD_LIBRARY_PATH", "XDG_CONFIG_HOME",
            "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR",
        ]
        return environment.filter { names.contains($0.key) || $0.key.hasPrefix("SSHELF_") }
            .sorted { $0.key < $1.key }.flatMap { ["-e", "\($0.key)=\($0.value)"] }
    }

    @discardableResult
    func run(_ arguments: [String]) throws -> String {
        guard let output = ChildProcess.run([tmux] + arguments, environment: environment, timeout: 30) else {
            throw ShelfError(.failure, "tmux could not be started (\(tmux))", hint: "install tmux: apt install tmux")
        }
        guard output.status == 0 else {
            let said = String(decoding: output.stderr, as: UTF8.self).trimmingSpacesAndNewlines()
            throw ShelfError(
                .failure, "tmux \(arguments.first ?? ""): \(Display.safe(said.isEmpty ? "failed" : said))")
        }
        return String(decoding: output.stdout, as: UTF8.self)
    }
}
