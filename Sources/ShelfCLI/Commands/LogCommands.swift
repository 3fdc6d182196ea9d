// LogCommands: `sshelf log` (the release log: every password, key and signature the vault released, when, for
// which host or process) and `sshelf log verify` (recomputes its hash chain with the device-only log key).
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfServices
import ShelfVault

enum LogCommands {
    static let commands: [CommandSpec] = [
        CommandSpec(
            path: ["log"],
            summary: "show the release log: every credential the vault released, and every agent signature",
            details: """
                One line per release — a password, private key or key passphrase read from the vault by connect, \
                exec, run, cp, forward, the TUI or copy-id, and every signature the sshelf agent made — with the time, \
                what, and for which host or requesting process; and one line per 'run' or 'cp' (its hosts, the \
                SHA-256 of its command, each host's verified key and outcome). Never a secret. The lines are \
                hash-chained with a device-only key; 'sshelf log verify' checks them. The log is rotated at 1 MiB and \
                keeps nine archived files (release.log.1 to .9): the newest ~40,000 releases, at most 10 MiB.
                """,
            options: ShowOptions.self,
            examples: ["sshelf log --since 1d", "sshelf log --json"],
            run: show),
        CommandSpec(
            path: ["log", "verify"],
            summary: "check that no line of the release log was changed, removed, reordered or cut off",
            details: """
                Recomputes every line's MAC (BLAKE2b keyed with the vault's device-only log.key, chained over the \
                previous line, across the archived files too) and compares both ends with the MAC'd head record. \
                Exit 4 when anything does not match: an edited, removed or reordered line, a deleted archive. A \
                cut-off end is found unless the head record was also replaced with an older copy of itself (see \
                docs/VAULT.md).
                """,
            options: VaultCommands.PassphraseOptions.self, run: verify),
    ]

    struct ShowOptions: CommandOptions {
        let json = Flag("json", "print JSON for scripts")
        let since = Option(
            "since", .since, "only lines since a date (2025-01-31, 2025-01-31T08:00) or a span ago (30m, 12h, 7d)")
    }

    static func show(_ call: Call<ShowOptions>, _ context: AppContext) throws -> Int32 {
        let since = call[\.since]
        let log = ReleaseLog(locations: context.locations)
        let (entries, damaged) = try attempt { () throws(ReleaseLogError) in try log.entries() }
        let shown = entries.filter { entry in since.map { entry.time >= $0 } ?? true }
        if call[\.json] {
            context.print(try JSONOutput.encode(shown))
        } else if entries.isEmpty && damaged == 0 {
            context.errorOutput("nothing was released yet (the log is \(log.path))\n")
        } else {
            let rows = shown.map { entry -> [String] in
                [
                    LocalTime.text(entry.time), entry.what, entry.by, entry.host ?? entry.process ?? "",
                    entry.detail ?? entry.item,
                ]
            }
            context.output(Display.table(["TIME", "WHAT", "BY", "FOR", "ITEM"], rows))
        }
        if damaged > 0 {
            context.warn("\(damaged) line(s) of the log could not be read; run 'sshelf log verify'")
        }
        return 0
    }

    static func verify(_ call: Call<VaultCommands.PassphraseOptions>, _ context: AppContext) throws -> Int32 {
        let log = ReleaseLog(locations: context.locations)
        guard Vault.exists(at: context.locations) else {
            if FileManager.default.fileExists(atPath: log.path) {
                throw ShelfError(.invalid, "the release log exists, but this device has no vault to verify it with")
            }
            context.print("nothing was released yet: there is no vault and no release log")
            return 0
        }
        let vault = try VaultCommands.open(context, create: false)
        if case .locked = vault.releaseLogKey(create: false) {
            let passphrase = try SecretInput(call, \.passphraseFD).read(prompt: "Vault passphrase: ")
            try VaultCommands.attempt { () throws(VaultError) in try vault.unlock(passphrase: passphrase) }
        }
        var verdict = try attempt { () throws(ReleaseLogError) in try log.verify(vault: vault) }
        // Each recording's digest is chained into the log: a recording changed or removed behind sshelf's back shows.
        if verdict.intact {
            let (entries, _) = try attempt { () throws(ReleaseLogError) in try log.entries() }
            let recordings = RecordingCatalog.verify(locations: context.locations, entries: entries)
            verdict.problems += recordings.problems
            verdict.notes += recordings.notes
        }
        for note in verdict.notes { context.print("note: \(note)") }
        guard verdict.intact else {
            throw ShelfError(
                .invalid, "the release log does not verify: " + verdict.problems.joined(separator: "; "),
                hint: "the log at \(log.path) or a recording in \(Recordings.directoryPath(context.locations)) was "
                    + "changed outside sshelf; keep a copy for investigation")
        }
        context.print("the release log is intact: \(verdict.lines) line\(verdict.lines == 1 ? "" : "s")")
        return 0
    }

    /// A date (`2025-01-31`, `2025-01-31T08:00[:00]`, local time, or with `Z`) or a span back from now (`30m`,
    /// `12h`, `7d`, `2w`).
    static func since(_ text: String, now: Date) -> Date? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        if let unit = text.last, let seconds = units[unit], let count = Double(text.dropLast()), count >= 0 {
            return now.addingTimeInterval(-count * seconds)
        }
        return LocalTime.parse(text)
    }

    static func attempt<T>(_ body: () throws(ReleaseLogError) -> T) throws -> T {
        do { return try body() } catch {
            guard let guidance = error.guidance else { throw ShelfError(.storage, error.message, hint: error.hint) }
            throw ShelfError(.storage, error.message, guidance: guidance)
        }
    }
}
