// UserConfigSource: one source of truth per host once ~/.ssh/config includes the bridge. For a host that file
// defines (a `Host` line names it), the file decides every setting it gives (the bridge yields:
// SSHConfigTransparency) and sshelf adds its vault key, pin and unlock guard; every other sshelf host takes its
// settings from sshelf (the bridge). `import ssh-config` of that file records what it imported (a digest of the file
// without the bridge's Include line, a device-local setting); when the file changed since, `check` says so and offers
// the re-import that brings sshelf's own copy (what `connect` and the TUI use) back in step.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfStore

public struct UserConfigSource: Sendable {
    let bridge: SSHConfigBridge

    public init(bridge: SSHConfigBridge) { self.bridge = bridge }

    /// The problem is the file's, not a record's.
    static let noRecord = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    /// The device-local setting that holds the digest of ~/.ssh/config as last imported.
    static let importedKey = "sshconfig.imported.sha256"

    var include: SSHConfigInclude {
        SSHConfigInclude(home: bridge.workspace.homeDirectory, bridgePath: bridge.path)
    }

    /// The digest of ~/.ssh/config as ssh reads it without the bridge (installing or removing the Include line is
    /// not a change of the user's); nil when it cannot be read.
    func digest() -> String? {
        guard let bytes = include.withoutInclude() else { return nil }
        return Digest.sha256(bytes).map { TextFormat.hex($0) }.joined()
    }

    /// Called after an import of `path`: remembers the file as imported when it is ~/.ssh/config.
    public func recordImport(of path: String, store: Store) throws {
        guard UserSSHConfig.realPath(path) == UserSSHConfig.realPath(include.configPath), let digest = digest() else {
            return
        }
        try store.write { try $0.setSetting(Self.importedKey, digest) }
    }

    /// Whether ~/.ssh/config changed since it was last imported — false when it was never imported or the bridge is
    /// not installed: then the file and sshelf are two separate things, as the user set them up. `check` and the
    /// TUI's status line both ask this.
    public func changedSinceImport(store: Store) -> Bool {
        guard bridge.exists, include.isInstalled, let imported = try? store.setting(Self.importedKey),
            let now = digest()
        else { return false }
        return now != imported
    }

    /// `check`'s report when ~/.ssh/config changed since it was last imported (`changedSinceImport`).
    public func problems(store: Store) -> [ModelProblem] {
        guard changedSinceImport(store: store) else { return [] }
        let path = include.configPath
        return [
            ModelProblem(
                kind: .userConfigChanged, recordID: Self.noRecord,
                message: "\(path) changed since sshelf last imported it: ssh takes the settings of the hosts it "
                    + "defines from it, while sshelf's own connect and the TUI use the copy imported then",
                fix: "sshelf import ssh-config (updates sshelf's copy of those hosts from the file)")
        ]
    }

    /// Where ssh takes each host's settings from, for `check`: the hosts ~/.ssh/config defines, and the others
    /// (sshelf's, through the bridge); nil when the file does not include the bridge (ssh does not read sshelf's).
    public func origins(hosts: [ShelfCore.Host]) -> (file: String, fromFile: [String], fromSshelf: [String])? {
        let workspace = bridge.workspace
        guard bridge.exists, include.isInstalled,
            let view = UserSSHConfig.hostLines(home: workspace.homeDirectory, own: bridge.locations.configDirectory)
        else { return nil }
        var fromFile: [String] = []
        var fromSshelf: [String] = []
        for host in hosts.sorted(by: { NaturalOrder.precedes($0.name, $1.name) }) {
            if view.defines(host.name) { fromFile.append(host.name) } else { fromSshelf.append(host.name) }
        }
        return (include.configPath, fromFile, fromSshelf)
    }
}
