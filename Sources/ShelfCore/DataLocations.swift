// DataLocations: where sshelf keeps each file (XDG base directories; SSHELF_HOME=DIR puts everything under
// DIR, for tests and benchmarks). Pure: computed from an environment dictionary.
import FoundationEssentials

public struct DataLocations: Sendable, Equatable {
    public var dataDirectory: String
    public var stateDirectory: String
    public var configDirectory: String
    public var runtimeDirectory: String

    public var store: String { dataDirectory + "/store.sqlite" }
    public var vault: String { dataDirectory + "/vault.sqlite" }
    public var knownHosts: String { dataDirectory + "/known_hosts" }
    public var deviceKey: String { stateDirectory + "/device.key" }
    public var syncWorkingCopy: String { stateDirectory + "/sync" }
    /// The hash-chained log of every credential release, and its MAC'd head record.
    public var releaseLog: String { stateDirectory + "/release.log" }
    public var releaseLogHead: String { stateDirectory + "/release.log.head" }
    /// The one place the sshelf agent's socket is named (`SSH_AUTH_SOCK`, and ssh_config's `IdentityAgent`).
    public var agentSocket: String { agentDirectory + "/socket" }
    /// The agent's private (0700) folder: its socket and its state file.
    public var agentDirectory: String { runtimeDirectory + "/agent" }
    /// The ssh_config bridge OpenSSH's tools read (`sshelf ssh-config install` includes it from ~/.ssh/config).
    public var sshConfigBridge: String { configDirectory + "/ssh_config" }
    /// sshelf's pinned host keys in known_hosts form, beside the bridge (its pinned hosts' `UserKnownHostsFile`).
    public var bridgePins: String { configDirectory + "/ssh_known_hosts" }
    /// The public keys of vault identities, one file each, that make ssh offer the sshelf agent's key.
    public var bridgeKeys: String { configDirectory + "/keys" }

    public static func resolve(environment env: [String: String]) -> DataLocations {
        if let root = env["SSHELF_HOME"], !root.isEmpty {
            let base = trimmed(root)
            return DataLocations(
                dataDirectory: base + "/data", stateDirectory: base + "/state",
                configDirectory: base + "/config", runtimeDirectory: base + "/run")
        }
        let home = trimmed(
            env["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? FileManager.default.homeDirectoryForCurrentUser.path)
        func xdg(_ name: String, _ fallback: String) -> String {
            // XDG says relative paths are invalid and must be ignored.
            if let value = env[name], value.hasPrefix("/") { return trimmed(value) + "/sshelf" }
            return home + fallback + "/sshelf"
        }
        let runtime: String
        if let value = env["XDG_RUNTIME_DIR"], value.hasPrefix("/") {
            runtime = trimmed(value) + "/sshelf"
        } else {
            runtime = xdg("XDG_STATE_HOME", "/.local/state") + "/run"
        }
        return DataLocations(
            dataDirectory: xdg("XDG_DATA_HOME", "/.local/share"),
            stateDirectory: xdg("XDG_STATE_HOME", "/.local/state"),
            configDirectory: xdg("XDG_CONFIG_HOME", "/.config"), runtimeDirectory: runtime)
    }

    private static func trimmed(_ path: String) -> String {
        var path = path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return path
    }
}
