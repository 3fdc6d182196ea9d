// ConfigImport: the one `import ssh-config` both faces run — read the file as ssh does (Include followed, sshelf's
// own output never read back), resolve each host, plan it onto the store in one transaction (rolled back for a dry
// run), and remember ~/.ssh/config as imported so `check` and the TUI can say when it changes. The CLI's command and
// the TUI's import dialog (its preview is the dry run) call `run` and show the summary's text.
import FoundationEssentials
import ShelfCore
import ShelfStore
import ShelfSystem

public enum ConfigImport {
    /// The file imported when none is named, as the user writes it.
    public static let defaultPath = "~/.ssh/config"

    /// The user's ssh config with `~` expanded: what `import ssh-config` reads without an argument.
    public static func userConfigPath(home: String) -> String { SSHConfigReader.expandTilde(defaultPath, home: home) }

    public struct Outcome: Sendable {
        /// The file imported, `~` expanded.
        public let path: String
        public let summary: ImportSummary
        public let dryRun: Bool
        /// What `import ssh-config` prints: the summary's text (made on the other core while the import commits).
        public let text: String
    }

    /// Rolls the dry run's transaction back, carrying what it found.
    struct DryRun: Error { var summary: ImportSummary }

    /// Imports `path` (default ~/.ssh/config). `groupPath` puts new hosts in that group; `groupByFile` puts the new
    /// hosts of each Included file in a group named after it. `store` is asked for once the file has been read (a file
    /// that cannot be read is reported before the store is opened). Throws `ShelfError` for a file sshelf refuses to
    /// import (its own output) or a line ssh would refuse too; nothing is written then.
    public static func run(
        path given: String?, groupPath: String? = nil, groupByFile: Bool = false, dryRun: Bool,
        workspace: Workspace, store openStore: () throws -> Store
    ) throws -> Outcome {
        let home = workspace.homeDirectory
        let locations = workspace.locations
        let path = SSHConfigReader.expandTilde(given ?? defaultPath, home: home)
        let sshDirectory = home + "/.ssh"
        let base = path.hasPrefix(sshDirectory + "/") ? sshDirectory : path.parentPath
        let source = UserSSHConfig.fileSource(home: home, own: locations.configDirectory)
        if let why = source.skip?(path) {
            throw ShelfError(
                .invalid, "\(path) is not imported: \(why)",
                hint: "import your own config (~/.ssh/config)")
        }
        let document: SSHConfigDocument
        do {
            document = try SSHConfigReader.read(path: path, source: source, includeBase: base)
        } catch let error as SSHConfigSyntaxError {
            throw ShelfError(
                .invalid, "\(error)", hint: "fix that line (ssh -G would reject it too); nothing was imported")
        }
        let resolved = SSHConfigResolver.resolve(document)
        Release.elsewhereGivingBack(consume document)
        // The installed ssh is shown the kept lines on the other core while this one plans the import.
        let scratch = locations.configDirectory
        try PrivateFiles.ensureDirectory(scratch)
        let optionLists = resolved.hosts.map(\.options) + resolved.defaults.map(\.options)
        let refused = BackgroundValue { RefusedOptions.refused(optionLists, scratch: scratch) }
        let store = try openStore()
        let summary: ImportSummary
        var text: BackgroundValue<String>?
        do {
            summary = try store.bulkWrite { store in
                var planned = try ImportPlan.apply(
                    resolved, groupPath: groupPath, home: home, leftovers: BridgeLeftovers(locations: locations),
                    store: store, groupByFile: groupByFile ? path : nil)
                planned.warnings += ImportPlan.refusedWarnings(resolved, refused: refused.value)
                let summary = planned
                if dryRun { throw DryRun(summary: summary) }
                // The report (a line for each host added) is written on the other core while this one commits.
                text = BackgroundValue { summary.text(path: path, dryRun: false) }
                return summary
            }
        } catch let dry as DryRun {
            Release.elsewhere(consume resolved)
            return Outcome(
                path: path, summary: dry.summary, dryRun: true, text: dry.summary.text(path: path, dryRun: true))
        }
        Release.elsewhere(consume resolved)
        // ~/.ssh/config as imported now: `check` and the TUI say when it changes after this (UserConfigSource).
        try UserConfigSource(bridge: SSHConfigBridge(workspace: workspace)).recordImport(of: path, store: store)
        return Outcome(
            path: path, summary: summary, dryRun: false, text: text?.value ?? summary.text(path: path, dryRun: false))
    }
}
