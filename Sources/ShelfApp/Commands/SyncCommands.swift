// SyncCommands: `sshelf sync enable|status|now|devices|disable` — the config track over a folder or a git
// repository, with the true reason whenever sync falls back to the local store.
import Foundation
import ShelfCore
import ShelfStore
import ShelfSync

enum SyncCommands {
    static let commands: [CommandSpec] = [
        CommandSpec(
            path: ["sync", "enable"], summary: "sync with a folder or a git repository",
            details: "Each device writes only its own files in the remote, so Syncthing, Nextcloud, Dropbox, NFS or git never see a conflict. Runs a first sync at once.",
            options: [
                .value("folder", "PATH", completion: .file, "a folder kept in step between your devices"),
                .value("git", "URL", "a git repository (your own git auth is used)"),
            ],
            examples: ["sshelf sync enable --folder ~/Sync/sshelf", "sshelf sync enable --git git@example.com:me/sshelf-sync.git"],
            run: enable),
        CommandSpec(path: ["sync", "status"], summary: "show whether sync is on and how the last run went",
                    options: [.flag("json", "print JSON for scripts")], run: status),
        CommandSpec(path: ["sync", "now"], summary: "sync now and report what changed", run: now),
        CommandSpec(path: ["sync", "devices"], summary: "list the devices that sync through the remote", run: devices),
        CommandSpec(path: ["sync", "disable"], summary: "stop syncing (the local store and the remote are kept)", run: disable),
    ]

    static func deviceName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "unknown" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

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
        return report(SyncRunner.run(store: store, locations: context.locations, deviceName: deviceName()), context)
    }

    static func now(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        guard try SyncSettings.load(from: store) != nil else {
            throw ShelfError(.failure, "sync is off", hint: "turn it on with 'sshelf sync enable --folder PATH' or '--git URL'")
        }
        return report(SyncRunner.run(store: store, locations: context.locations, deviceName: deviceName()), context)
    }

    /// Prints a run's outcome; exit 1 when sync fell back to the local store.
    static func report(_ report: SyncReport, _ context: AppContext) -> Int32 {
        for line in report.skipped { context.warn("skipped \(line)") }
        switch report.state {
        case .synced:
            context.print("synced: \(report.pulled) change\(report.pulled == 1 ? "" : "s") received, \(report.pushed) sent")
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
                var lastRun: SyncReport?
            }
            let state = settings == nil ? "off" : last?.state.rawValue ?? "never run"
            context.print(try JSONOutput.encode(View(state: state, transport: settings?.transport.rawValue,
                                                     location: settings?.location, device: try store.deviceID,
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
