// SessionCommands: `sshelf sessions list|search|export|rm|rotate` — the encrypted recordings of interactive sessions
// (docs/SESSIONS.md). Every command that reads a recording reads the vault's recordings key (one release-log line)
// and decrypts in memory; only `export --cast` writes plaintext, to the file the user names.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfServices
import ShelfVault

enum SessionCommands {
    static let idArgument = ArgumentSpec(name: "ID", help: "a recording's id, or its first digits (sessions list)")

    static let commands: [CommandSpec] = [
        CommandSpec(
            path: ["sessions", "list"], summary: "list the recorded sessions, oldest first",
            details: """
                Recordings are made when a host's (or its group's) record setting is on (sshelf edit HOST --record \
                on), or with connect --record. They are encrypted with a device-only vault key and never synced. \
                STATE is finished, recording (being written now), interrupted (its session was killed: it plays up \
                to its last second) or damaged.
                """,
            arguments: [
                ArgumentSpec(name: "HOST", help: "only this host's recordings", optional: true, completion: .host)
            ],
            options: ListOptions.self,
            examples: ["sshelf sessions list", "sshelf sessions list prod-db --json"], run: list),
        CommandSpec(
            path: ["sessions", "search"], summary: "find text in what recorded sessions showed",
            details: """
                Decrypts each recording in memory (nothing is written) and looks for TEXT in its output as the \
                terminal showed it: escape sequences left out, a line break read as a space, case ignored. Each hit \
                says the recording, its host and when; 'sshelf play ID --search TEXT' jumps there.
                """,
            arguments: [ArgumentSpec(name: "TEXT", help: "the text to find")],
            options: SearchOptions.self,
            examples: ["sshelf sessions search 'permission denied'"], run: search),
        CommandSpec(
            path: ["sessions", "export"], summary: "write a recording as an asciinema v2 file (plaintext)",
            details: """
                The one way a recording leaves its encryption: your explicit decision. The file is created new \
                with mode 0600 (never over an existing file) and can be played with asciinema play.
                """,
            arguments: [idArgument],
            options: ExportOptions.self,
            examples: ["sshelf sessions export 3f2a91c0 --cast session.cast"], run: export),
        CommandSpec(
            path: ["sessions", "rm"], summary: "remove recordings",
            details: "Each removal is written to the release log, so 'sshelf log verify' knows it was deliberate.",
            arguments: [ArgumentSpec(name: "ID", help: "recording ids (or their first digits)", variadic: true)],
            examples: ["sshelf sessions rm 3f2a91c0"], run: remove),
        CommandSpec(
            path: ["sessions", "rotate"], summary: "set how long recordings are kept, and apply it now",
            details: """
                Recordings older than --keep (default 30d) go, then the oldest until all of them fit in --max-size \
                (no limit unless set). The settings are this device's and apply again before every new recording; \
                each removal is written to the release log.
                """,
            options: RotateOptions.self,
            examples: ["sshelf sessions rotate --keep 30d --max-size 2G"], run: rotate),
    ]

    struct ListOptions: CommandOptions { let json = Flag("json", "print JSON for scripts") }

    struct SearchOptions: CommandOptions {
        let host = Option("host", .text("NAME", completion: .host), "only this host's recordings")
        let json = Flag("json", "print JSON for scripts")
    }

    struct ExportOptions: CommandOptions {
        let cast = Option("cast", .path("FILE"), "the asciinema v2 (.cast) file to create")
    }

    struct RotateOptions: CommandOptions {
        let keep = Option("keep", .age, "keep recordings this long: 12h, 30d, 8w")
        let maxSize = Option("max-size", .size, "keep at most this much in all: 500M, 2G")
    }

    static func vault(_ context: AppContext) throws -> Vault {
        guard Vault.exists(at: context.locations) else {
            throw ShelfError(
                .notFound, "there are no recordings on this device (it has no vault yet)",
                hint: "turn recording on for a host: sshelf edit HOST --record on")
        }
        return try VaultCommands.open(context, create: false)
    }

    static func list(_ call: Call<ListOptions>, _ context: AppContext) throws -> Int32 {
        let host = call.arguments.first
        guard !Recordings.files(context.locations).isEmpty else {
            if call[\.json] { context.print("[]") } else { context.errorOutput("no recorded sessions\n") }
            return 0
        }
        let vault = try vault(context)
        RecordingCatalog.sealInterrupted(locations: context.locations, vault: vault)
        let key = try Recordings.key(vault: vault, for: "sessions list")
        let all = RecordingCatalog.list(locations: context.locations, key: key).filter { summary in
            host.map { summary.info.host == $0 } ?? true
        }
        if call[\.json] {
            context.print(try JSONOutput.encode(all))
            return 0
        }
        let rows = all.map { summary -> [String] in
            [
                Recordings.shortID(summary.id), LocalTime.text(Date(timeIntervalSince1970: summary.info.started)),
                summary.info.host, duration(summary.seconds), "\(summary.info.columns)x\(summary.info.rows)",
                summary.state,
            ]
        }
        context.output(Display.table(["ID", "STARTED", "HOST", "LENGTH", "SIZE", "STATE"], rows))
        return 0
    }

    static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.down))
        let (h, m, s) = (whole / 3600, whole / 60 % 60, whole % 60)
        return h > 0
            ? "\(h):\(TextFormat.zeroPadded(m, width: 2)):\(TextFormat.zeroPadded(s, width: 2))"
            : "\(m):\(TextFormat.zeroPadded(s, width: 2))"
    }

    static func search(_ call: Call<SearchOptions>, _ context: AppContext) throws -> Int32 {
        let text = call.arguments[0]
        guard !text.isEmpty else { throw ShelfError(.invalid, "sessions search: the text is empty") }
        let files = Recordings.files(context.locations)
        guard !files.isEmpty else {
            context.errorOutput("no recorded sessions\n")
            return 1
        }
        let key = try Recordings.key(vault: try vault(context), for: "sessions search")
        var hits: [RecordingHit] = []
        for file in files {
            let found = try RecordingSearch.hits(of: text, in: (file.id, file.path), key: key)
            hits += found.filter { hit in call[\.host].map { hit.host == $0 } ?? true }
        }
        if call[\.json] {
            context.print(try JSONOutput.encode(hits))
        } else {
            let rows = hits.map { [Recordings.shortID($0.id), $0.host, "+" + duration($0.time), $0.context] }
            if !rows.isEmpty { context.output(Display.table(["ID", "HOST", "AT", "TEXT"], rows)) }
        }
        if hits.isEmpty && !call[\.json] { context.errorOutput("not found in any recording\n") }
        return hits.isEmpty ? 1 : 0
    }

    static func export(_ call: Call<ExportOptions>, _ context: AppContext) throws -> Int32 {
        guard let destination = call[\.cast] else {
            throw ShelfError(
                .usage, "sessions export: --cast FILE is required", hint: "sshelf sessions export ID --cast FILE")
        }
        let file = try RecordingCatalog.find(call.arguments[0], locations: context.locations)
        let key = try Recordings.key(vault: try vault(context), for: "sessions export")
        let events = try CastExport.write(file, key: key, to: destination)
        context.print("wrote \(Display.safe(destination)) (\(events) events, asciinema v2, plaintext)")
        return 0
    }

    static func remove(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        guard !call.arguments.isEmpty else {
            throw ShelfError(.usage, "sessions rm: which recordings?", hint: "sshelf sessions list shows their ids")
        }
        let files = try call.arguments.map { try RecordingCatalog.find($0, locations: context.locations) }
        let vault = try vault(context)
        for file in files {
            try Recordings.remove(file.id, path: file.path, by: "sessions rm", vault: vault)
            context.print("removed recording \(Recordings.shortID(file.id))")
        }
        return 0
    }

    static func rotate(_ call: Call<RotateOptions>, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        if let keep = call[\.keep] { try store.setSetting(RecordingRetention.keepSetting, String(keep)) }
        if let size = call[\.maxSize] { try store.setSetting(RecordingRetention.maxSizeSetting, String(size)) }
        let retention = try RecordingCatalog.retention(from: { try store.setting($0) })
        var removed: [UUID] = []
        if !Recordings.files(context.locations).isEmpty {
            removed = try RecordingCatalog.tidy(
                locations: context.locations, retention: retention, vault: try vault(context))
        }
        let keep = retention.keepSeconds.map { "\(Int($0 / 86_400))d" } ?? "forever"
        let size = retention.maxBytes.map { "\($0 >> 20) MiB" } ?? "no limit"
        context.print("recordings kept \(keep), at most \(size); removed \(removed.count) now")
        return 0
    }
}
