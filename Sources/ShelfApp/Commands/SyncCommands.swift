// SyncCommands: `sshelf sync enable|status|now|devices|disable` — the config track over a folder or a git
// repository, with the true reason whenever sync falls back to the local store.
import Foundation
import ShelfCore
import ShelfOperations
import ShelfStore
import ShelfSync
import ShelfVault

enum SyncCommands {
    static let commands: [CommandSpec] = [
        CommandSpec(
            path: ["sync", "enable"], summary: "sync with a folder or a git repository",
            details: "Each device writes only its own files in the remote, so Syncthing, Nextcloud, Dropbox, NFS or git never see a conflict. Runs a first sync at once.",
            options: [
                .value("folder", "PATH", completion: .file, "a folder kept in step between your devices"),
                .value("git", "URL", "a git repository (your own git auth is used)"),
                .flag("credentials", "also sync passwords and keys, end-to-end encrypted; prints a join code for your other devices"),
                .value("passphrase-fd", "N", "read the vault passphrase from file descriptor N instead of the terminal"),
            ],
            examples: ["sshelf sync enable --folder ~/Sync/sshelf", "sshelf sync enable --git git@example.com:me/sshelf-sync.git --credentials"],
            run: enable),
        CommandSpec(
            path: ["sync", "join"], summary: "sync credentials on this device: type the join code from your first device",
            details: "The code is read from the terminal (or --code-fd), never from the command line. A mistyped code is rejected by its checksum before anything is written.",
            options: [
                .value("code-fd", "N", "read the join code from file descriptor N"),
                .value("passphrase-fd", "N", "read the vault passphrase from file descriptor N instead of the terminal"),
            ],
            run: join),
        CommandSpec(path: ["sync", "status"], summary: "show whether sync is on and how the last run went",
                    options: [.flag("json", "print JSON for scripts")], run: status),
        CommandSpec(path: ["sync", "now"], summary: "sync now and report what changed",
                    options: [.value("passphrase-fd", "N", "read the vault passphrase from file descriptor N (for whenUnlocked items)")],
                    run: now),
        CommandSpec(path: ["sync", "devices"], summary: "list the devices that sync through the remote", run: devices),
        CommandSpec(path: ["sync", "disable"], summary: "stop syncing (the local store and the remote are kept)", run: disable),
    ]

    static func deviceName() -> String { Device.name() }

    static func enable(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let settings: SyncSettings
        switch (call.value("folder"), call.value("git")) {
        case (let folder?, nil):
            var path = SSHConfigReader.expandTilde(folder, home: context.homeDirectory)
            if !path.hasPrefix("/") { path = FileManager.default.currentDirectoryPath + "/" + path }
            settings = SyncSettings(transport: .folder, location: (path as NSString).standardizingPath)
        case (nil, let url?):
            guard !url.isEmpty, !url.hasPrefix("-") else { throw ShelfError(.usage, "--git: '\(Display.safe(url))' is not a repository URL") }
            settings = SyncSettings(transport: .git, location: url)
        default:
            throw ShelfError(.usage, "sync enable: give exactly one of --folder PATH or --git URL",
                             hint: ArgumentParser.usageHint(call.command))
        }
        let store = try context.store()
        try settings.save(to: store)
        if settings.transport == .git { try? FileManager.default.removeItem(atPath: SyncRunner.gitWorkingCopy(context.locations)) }
        context.print("sync enabled: \(settings.transport.rawValue) \(Display.safe(settings.location))")
        if call.flag("credentials") {
            let vault = try VaultCommands.open(context, create: true)
            try VaultCommands.unlockIfNeeded(vault, for: [.afterFirstUnlockThisDeviceOnly], try SecretInput(call, option: "passphrase-fd"))
            switch vault.loadSyncKey(class: .afterFirstUnlockThisDeviceOnly) {
            case .found(let key):
                context.print("credential sync on, with this device's existing sync key; join code for your other devices:")
                context.print("    \(SyncKey.joinCode(for: key))")
            case .notStored:
                let key = SyncKey.generate()
                try VaultCommands.attempt { () throws(VaultError) in try vault.saveSyncKey(key, class: .afterFirstUnlockThisDeviceOnly) }
                context.print("credential sync on. On each other device run 'sshelf sync join' and type this join code")
                context.print("(it is shown only now; anyone with it and the remote can read your synced credentials):")
                context.print("    \(SyncKey.joinCode(for: key))")
            default:
                throw ShelfError(.failure, "cannot read the sync key from the vault", hint: "run 'sshelf vault status'")
            }
            try SyncSettings.setCredentials(true, store)
            return try runSync(call, context, store, vault: vault)
        }
        return try runSync(call, context, store)
    }

    static func join(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        guard try SyncSettings.load(from: store) != nil else {
            throw ShelfError(.failure, "sync is off on this device", hint: "first 'sshelf sync enable --folder PATH' (or --git URL) with the same remote")
        }
        let code = try SecretInput(call, option: "code-fd").read(prompt: "Join code: ")
        let text = code.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        let key: SecretBytes
        do { key = try SyncKey.parse(joinCode: text) } catch { throw VaultCommands.shelfError(error) }
        let vault = try VaultCommands.open(context, create: true)
        try VaultCommands.unlockIfNeeded(vault, for: [.afterFirstUnlockThisDeviceOnly], try SecretInput(call, option: "passphrase-fd"))
        if case .found(let existing) = vault.loadSyncKey(class: .afterFirstUnlockThisDeviceOnly), !existing.isEqual(to: key) {
            throw ShelfError(.invalid, "this device already has a different sync key",
                             hint: "to switch, run 'sshelf vault rm sync.key' first (credentials already synced stay)")
        }
        try VaultCommands.attempt { () throws(VaultError) in try vault.saveSyncKey(key, class: .afterFirstUnlockThisDeviceOnly) }
        try SyncSettings.setCredentials(true, store)
        context.print("joined: this device now syncs credentials")
        return try runSync(call, context, store, vault: vault)
    }

    /// One sync run with the credential track when it is on (unlocking the vault first if asked to).
    static func runSync(_ call: Invocation, _ context: AppContext, _ store: Store, vault opened: Vault? = nil) throws -> Int32 {
        var vault: Vault?
        if try SyncSettings.credentialsEnabled(store) {
            vault = try opened ?? VaultCommands.open(context, create: false)
            if let vault, call.value("passphrase-fd") != nil {
                try VaultCommands.unlockIfNeeded(vault, for: Set(AccessibilityClass.allCases.filter(\.mayLeaveDevice)),
                                                 try SecretInput(call, option: "passphrase-fd"))
            }
        }
        return report(SyncRun.run(context.workspace, store: store, vault: vault), context)
    }

    static func now(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        guard try SyncSettings.load(from: store) != nil else {
            throw ShelfError(.failure, "sync is off", hint: "turn it on with 'sshelf sync enable --folder PATH' or '--git URL'")
        }
        return try runSync(call, context, store)
    }

    /// Prints a run's outcome; exit 1 when sync fell back to the local store.
    static func report(_ report: SyncReport, _ context: AppContext) -> Int32 {
        for line in report.skipped { context.warn("skipped \(line)") }
        switch report.state {
        case .synced:
            var line = "synced: \(report.pulled) change\(report.pulled == 1 ? "" : "s") received, \(report.pushed) sent"
            if report.credentials {
                line += "; credentials: \(report.credentialsReceived) received, \(report.credentialsSent) in the upload"
                if report.migrated > 0 { line += ", \(report.migrated) moved to syncable classes" }
            }
            context.print(line)
            return 0
        case .localFallback:
            context.errorOutput("sshelf: error: local fallback: \(Display.safe(report.reason ?? "unknown"))\n")
            return 1
        case .off:
            context.print("sync off")
            return 0
        }
    }

    static func status(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        let settings = try SyncSettings.load(from: store)
        var last = SyncRunner.lastReport(context.locations)
        if settings == nil { last = SyncReport(state: .off, at: Date()) }
        if call.flag("json") {
            struct View: Encodable {
                var state: String
                var transport: String?
                var location: String?
                var device: String
                var pendingUp: Int
                var lastRun: SyncReport?
            }
            let state = settings == nil ? "off" : last?.state.rawValue ?? "never run"
            context.print(try JSONOutput.encode(View(state: state, transport: settings?.transport.rawValue,
                                                     location: settings?.location, device: try store.deviceID,
                                                     pendingUp: settings == nil ? 0 : try SyncSettings.pendingUp(store),
                                                     lastRun: settings == nil ? nil : last)))
            return 0
        }
        guard let settings else {
            context.print("○ sync off")
            return 0
        }
        var out = "remote: \(settings.transport.rawValue) \(Display.safe(settings.location))\ndevice: \(try store.deviceID)\n"
        switch last?.state {
        case .synced?: out += "✓ synced \(Display.relative(last?.at)) (\(last?.pulled ?? 0) received, \(last?.pushed ?? 0) sent)\n"
        case .localFallback?: out += "▲ local fallback: \(Display.safe(last?.reason ?? "unknown")) (\(Display.relative(last?.at)))\n"
        default: out += "not synced yet: run 'sshelf sync now'\n"
        }
        let pending = try SyncSettings.pendingUp(store)
        if pending > 0 { out += "\(pending) local change\(pending == 1 ? "" : "s") not sent yet\n" }
        for line in last?.skipped ?? [] { out += "  skipped \(Display.safe(line))\n" }
        context.output(out)
        return 0
    }

    static func devices(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        guard let settings = try SyncSettings.load(from: store) else {
            throw ShelfError(.failure, "sync is off", hint: "turn it on with 'sshelf sync enable --folder PATH' or '--git URL'")
        }
        let root = settings.transport == .folder ? settings.location : SyncRunner.gitWorkingCopy(context.locations)
        let remote = FolderRemote(path: root)
        let own = try store.deviceID
        var rows: [[String]] = [[own, deviceName() + " (this device)", "\(remote.batches(of: own).count)"]]
        for (folder, info) in remote.otherDevices(except: own) {
            switch info {
            case .success(let device): rows.append([folder, device.name, "\(remote.batches(of: folder).count)"])
            case .failure(let failure): rows.append([folder, "(ignored: \(failure.reason))", "-"])
            }
        }
        context.output(Display.table(["DEVICE", "NAME", "BATCHES"], rows))
        return 0
    }

    static func disable(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        try SyncSettings.clear(from: store)
        try? FileManager.default.removeItem(atPath: SyncRunner.statusFile(context.locations))
        context.print("sync off; the local store and the remote were left as they are")
        return 0
    }
}
