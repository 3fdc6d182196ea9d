// FleetLog: the two release-log lines a fleet run leaves — one before any host starts (the hosts as resolved and a
// SHA-256 of the command, never the command: it may hold a secret someone typed), one when it ends (each host's
// verified key fingerprint and how it ended). A run whose first line could not be written never runs. Its refusals
// name what the caller logs (a run, a copy, the file pane's save, a broadcast), not always "the run".
import FoundationEssentials
import ShelfCore
import ShelfVault

public enum FleetLog {
    /// Opens the vault (made when there is none: the log's key lives in it) and makes sure the log key can be read,
    /// unlocking with `passphrase` when it is locked. Throws, in the user's words, when it could not be logged:
    /// `what` names what is logged ("run", "copy", "save").
    public static func prepare(_ workspace: Workspace, what: String, passphrase: () -> SecretBytes?) throws -> Vault {
        let vault = try VaultAccess.open(workspace, create: true)
        switch vault.releaseLogKey(create: true) {
        case .key:
            return vault
        case .locked:
            guard let typed = passphrase() else {
                throw ShelfError(
                    .failure, "\(Self.article(what)) \(what) is logged in the release log, whose key is locked",
                    guidance: Hint(.command(["vault", "unlock"])).or(.passphrase(.give)))
            }
            try vault.unlock(passphrase: typed)
            guard case .key = vault.releaseLogKey(create: true) else {
                throw ShelfError(
                    .failure, "the release log key cannot be read after the unlock",
                    guidance: Hint(.command(["vault", "status"])))
            }
            return vault
        case .absent, .unavailable:
            throw ShelfError(
                .storage, "the release log key cannot be read from the vault, so the \(what) could not be logged",
                hint: "sshelf vault status")
        }
    }

    /// `sha256:HEX` of the command as sent.
    public static func commandHash(_ command: String) -> String {
        "sha256:" + Digest.sha256(Array(command.utf8)).map { TextFormat.hex($0) }.joined()
    }

    /// The entry written before any host starts (`what` "run started", "copy started"): nothing is sent to a
    /// host, warm or cold, until it is in the log.
    public static func startEntry(by: String, what: String, item: String, targets: [String], hosts: [String])
        -> ReleaseEntry
    {
        let detail = "targets " + targets.map { ShellWord.quote($0) }.joined(separator: " ")
        return ReleaseEntry(
            what: what + " started", item: item, by: by, host: hosts.joined(separator: ","), detail: detail)
    }

    /// The entry when the run ends: `what` run (or copy), `item` the command's hash, `host` every resolved host,
    /// `detail` the targets as typed and `NAME FINGERPRINT OUTCOME[=STATUS]` per host.
    public static func entry(
        by: String, what: String, item: String, targets: [String],
        results: [FleetHostResult]
    ) -> ReleaseEntry {
        let hosts = results.map(\.name).joined(separator: ",")
        let lines = results.map { result in
            let status = result.exitStatus.map { "=\($0)" } ?? ""
            return "\(result.name) \(result.fingerprint ?? "-") \(result.outcome.rawValue)\(status)"
        }
        let detail =
            "targets " + targets.map { ShellWord.quote($0) }.joined(separator: " ") + "; "
            + lines.joined(separator: "; ")
        return ReleaseEntry(what: what, item: item, by: by, host: hosts, detail: detail)
    }

    /// Appends `entry`; `what` names what could not be written when it cannot ("run", "copy", "save").
    public static func record(_ entry: ReleaseEntry, what: String, vault: Vault, workspace: Workspace) throws {
        do {
            try vault.record(entry, log: ReleaseLog(locations: workspace.locations))
        } catch {
            throw ShelfError(
                .storage, "the \(what) could not be written to the release log: \(error.message)", hint: error.hint)
        }
    }

    static func article(_ noun: String) -> String { noun.first.map { "aeiou".contains($0) } == true ? "an" : "a" }
}
