// FilesReleaseLog: the release-log lines of the file pane's copies and editor saves — the two `sshelf cp` writes
// (FleetLog's `copy started` before anything is sent, `copy` when it ends, `by: files`), the item the hash of the cp
// command line that does the same copy. A copy or save whose first line cannot be written does not start, and the
// refusal names which it was (the copy, the save).
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfServices
import ShelfSSH
import ShelfVault

struct FilesReleaseLog: Sendable {
    /// The pane's host as the store names it, and the key its login verified (`SHA256:…`; nil: none known).
    let host: String
    let hostID: UUID
    let fingerprint: String?
    let workspace: Workspace

    /// The log of a pane logged in by `plan`: a key pinned by this login is the one verified, else the one pinned.
    static func of(_ plan: ConnectPlan, outcome: ConnectOutcome, workspace: Workspace) -> FilesReleaseLog {
        let key = outcome.pinnedKeys.last { $0.hostID == plan.target.id }?.key ?? plan.target.pinnedHostKey
        return FilesReleaseLog(
            host: plan.target.name, hostID: plan.target.id, fingerprint: key.flatMap(FleetSession.fingerprint),
            workspace: workspace)
    }

    /// A copy being logged: its first line is written; `end` writes the last.
    struct Started {
        let vault: Vault
        let item: String
        /// What it is, in the refusals' words: copy or save.
        let what: String
    }

    /// The cp command line of a copy from `sources` into `destination`, the host's paths as `HOST:PATH`.
    func command(_ sources: [String], to destination: String, upload: Bool, recursive: Bool) -> String {
        let remote = { (path: String) in host + ":" + path }
        let words = upload ? sources + [remote(destination)] : sources.map(remote) + [destination]
        return "cp " + (recursive ? "-r " : "") + words.joined(separator: " ")
    }

    /// Writes the `copy started` line (the vault opened and the log's key checked first; a locked key is not asked
    /// for here: the pane's copy is refused with the reason). Throws, in the user's words, when it could not be;
    /// `what` names it there (copy, or save for the editor's).
    func begin(_ command: String, what: String) throws -> Started {
        let vault = try FleetLog.prepare(workspace, what: what, passphrase: { nil })
        let item = FleetLog.commandHash(command)
        try FleetLog.record(
            FleetLog.startEntry(by: "files", what: "copy", item: item, targets: [host], hosts: [host]), what: what,
            vault: vault, workspace: workspace)
        return Started(vault: vault, item: item, what: what)
    }

    /// Writes the `copy` line: the host, its key and how the copy ended.
    func end(_ started: Started, outcome: FleetHostResult.Outcome) throws {
        var result = FleetHostResult(name: host, hostID: hostID, outcome: outcome)
        result.fingerprint = fingerprint
        try FleetLog.record(
            FleetLog.entry(by: "files", what: "copy", item: started.item, targets: [host], results: [result]),
            what: started.what, vault: started.vault, workspace: workspace)
    }
}
