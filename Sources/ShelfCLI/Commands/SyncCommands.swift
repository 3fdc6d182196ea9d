// SyncCommands: `sshelf sync enable|invite|join|now|status|devices|revoke|conflicts|disable` — the sync group over a
// folder or a git repository (enrollment by one-time invite, revocation with a new group key), with the true reason
// whenever sync falls back to the local store.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfOperations
import ShelfServices
import ShelfStore
import ShelfSync
import ShelfVault

enum SyncCommands {
    static let passphraseFD = Option(
        "passphrase-fd", .descriptor, "read the vault passphrase from file descriptor N instead of the terminal")

    struct EnableOptions: CommandOptions {
        let folder = Option("folder", .path(), "a folder kept in step between your devices")
        let git = Option("git", .text("URL"), "a git repository (your own git auth is used)")
        let credentials = Flag("credentials", "also sync passwords and keys, end-to-end encrypted, on this device")
        let consent = SyncCredentialConsent.Options()
        let passphraseFD = SyncCommands.passphraseFD
    }

    struct InviteOptions: CommandOptions {
        let expires = Option(
            "expires", .span(60...7 * 86_400, examples: ["30m", "1h", "2d"]),
            "how long the code works: 30m, 1h, 2d (at most 7d)")
        let passphraseFD = SyncCommands.passphraseFD
    }

    struct JoinOptions: CommandOptions {
        let codeFD = Option("code-fd", .descriptor, "read the invite code from file descriptor N")
        let consent = SyncCredentialConsent.Options()
        let passphraseFD = SyncCommands.passphraseFD
    }

    struct PassphraseOptions: CommandOptions { let passphraseFD = SyncCommands.passphraseFD }

    struct RevokeOptions: CommandOptions {
        let yes = Flag("yes", "revoke without asking for the device's name")
        let passphraseFD = SyncCommands.passphraseFD
    }

    static let commands: [CommandSpec] =
        [
            CommandSpec(
                path: ["sync", "enable"], summary: "sync with a folder or a git repository",
                details: "Each device writes only its own files in the remote, every entry sealed and signed, so "
                    + "Syncthing, Nextcloud, Dropbox, NFS or git never see a conflict and never see a host name. The "
                    + "first device creates the sync group; the others join it with an invite ('sshelf sync invite'). "
                    + "Runs a first sync at once and says what it did; the exit status is 0 once sync is on, whatever "
                    + "that first run found. With sync already on, --credentials alone turns the credential track on "
                    + "for this device: it first lists what will travel, what moves from a device-only class of the "
                    + "default table to its syncable twin, and what stays on this device (classes you chose with "
                    + "'sshelf vault set-class' never move), and asks (--yes for scripts); a vault without a "
                    + "passphrase asks you to set one or to accept the risk.",
                options: EnableOptions.self,
                examples: [
                    "sshelf sync enable --folder ~/Sync/sshelf",
                    "sshelf sync enable --git git@example.com:me/sshelf-sync.git --credentials",
                ],
                run: enable),
            CommandSpec(
                path: ["sync", "invite"], summary: "make a one-time code that lets another device join the sync group",
                details: "The code is shown once. On the new device run 'sshelf sync join' and type it; this device "
                    + "enrolls the new one on its next sync. A code works once and expires (default 1h).",
                options: InviteOptions.self,
                examples: ["sshelf sync invite", "sshelf sync invite --expires 30m"],
                run: invite),
            CommandSpec(
                path: ["sync", "join"], summary: "join the sync group with an invite code from an enrolled device",
                details: "Run 'sshelf sync enable' with the same remote first. The code is read from the terminal (or "
                    + "--code-fd), never from the command line; a mistyped code fails its checksum before anything is "
                    + "written. The device syncs in once the inviting device has enrolled it. When the group syncs "
                    + "credentials, this device takes them only after the same questions as 'sshelf sync enable "
                    + "--credentials' (a vault passphrase, or the risk accepted; the list of what will travel); "
                    + "otherwise it joins for the config alone.",
                options: JoinOptions.self,
                run: join),
            CommandSpec(
                path: ["sync", "status"], summary: "show whether sync is on and how the last run went",
                options: JSONOptions.self, run: status),
            CommandSpec(
                path: ["sync", "now"], summary: "sync now and report what changed", options: PassphraseOptions.self,
                run: now),
            CommandSpec(
                path: ["sync", "devices"], summary: "list the devices of the sync group",
                options: JSONOptions.self, run: devices),
            CommandSpec(
                path: ["sync", "revoke"], summary: "remove a device from the sync group and replace the group key",
                details: "The device's later entries are refused everywhere, the group key is replaced, and every "
                    + "remaining device re-seals its state under the new key on its next sync; the revoked device "
                    + "cannot read anything written after. It cannot be undone: the device's name is asked for, "
                    + "typed (--yes for scripts; without a terminal and without --yes nothing is done).",
                arguments: [
                    ArgumentSpec(name: "DEVICE", help: "a device name or id prefix from 'sshelf sync devices'")
                ],
                options: RevokeOptions.self,
                run: revoke),
            CommandSpec(
                path: ["sync", "rename"],
                summary: "rename a device of the sync group (this one unless DEVICE is given)",
                details: "The new name is signed by this device and reaches every device, the renamed one included, "
                    + "through the roster on the next sync; no two devices of a group may share one. Any member may "
                    + "rename any device that is not revoked (two devices both called 'vm': rename the other from "
                    + "either). A device that joins with a name another device has gets the start of its id added "
                    + "(vm-3fa2).",
                arguments: [
                    ArgumentSpec(
                        name: "DEVICE",
                        help: "the device to rename, by name or id prefix from 'sshelf sync devices' (default: "
                            + "this device)", optional: true),
                    ArgumentSpec(name: "NAME", help: "the new name (one line, at most 64 bytes)"),
                ],
                options: PassphraseOptions.self,
                examples: ["sshelf sync rename laptop", "sshelf sync rename vm-3fa2 build-box"],
                run: rename),
        ] + SyncConflictCommands.commands + [
            CommandSpec(
                path: ["sync", "disable"], summary: "stop syncing (the local store and the remote are kept)",
                run: disable)
        ]

    static func deviceName() -> String { Device.name() }

    static let offHint = "turn it on with 'sshelf sync enable --folder PATH' or '--git URL'"

    static func enable(_ call: Call<EnableOptions>, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        let settings: SyncSettings
        switch (call[\.folder], call[\.git]) {
        case (let folder?, nil):
            var path = SSHConfigReader.expandTilde(folder, home: context.homeDirectory)
            if !path.hasPrefix("/") { path = FileManager.default.currentDirectoryPath + "/" + path }
            settings = SyncSettings(
                transport: .folder, location: PathText.standardized(path, home: context.homeDirectory))
        case (nil, let url?):
            guard !url.hasPrefix("-") else {
                throw ShelfError(
                    .usage, "--git: '\(Display.safe(url))' is not a repository URL",
                    hint: ArgumentParser.usageHint(call.command))
            }
            settings = SyncSettings(transport: .git, location: url)
        case (nil, nil) where call[\.credentials]:
            guard let current = try SyncSettings.load(from: store) else {
                throw ShelfError(
                    .usage, "sync enable --credentials: sync is off", hint: "give --folder PATH or --git URL as well")
            }
            settings = current
        default:
            throw ShelfError(
                .usage, "sync enable: give exactly one of --folder PATH or --git URL",
                hint: ArgumentParser.usageHint(call.command))
        }
        if call[\.folder] != nil || call[\.git] != nil { try validate(settings) }
        let vault = try VaultCommands.open(context, create: true)
        // Turning the credential track on is asked for before anything is saved: a refusal changes nothing.
        let turningOn = try call[\.credentials] && !SyncSettings.credentialsEnabled(store)
        if turningOn {
            do {
                try SyncCredentialConsent.obtain(
                    SyncCredentialConsent.Given(call, \.consent), context, store: store, vault: vault,
                    retry: "sshelf sync enable --credentials")
            } catch let refusal as SyncCredentialConsent.Refusal {
                throw ShelfError(.usage, refusal.message + "; nothing was changed", hint: refusal.hint)
            }
        }
        try unlock(SecretInput(call, \.passphraseFD), vault, store, turningCredentialsOn: call[\.credentials])
        if try SyncSettings.load(from: store) != settings {
            try settings.save(to: store)
            if settings.transport == .git {
                try? FileManager.default.removeItem(atPath: SyncRunner.gitWorkingCopy(context.locations))
            }
            context.print("sync enabled: \(settings.transport.rawValue) \(Display.safe(settings.location))")
        } else if !turningOn {
            context.print("sync was already on: \(settings.transport.rawValue) \(Display.safe(settings.location))")
        }
        if turningOn {
            try SyncSettings.setCredentials(true, store)
            context.print("credential sync on for this device: passwords and keys travel sealed to the group's devices")
        } else if call[\.credentials] {
            context.print("credential sync was already on for this device")
        }
        // Sync is on now: that is what this command did (exit 0). The first run is a separate story, told as such.
        _ = report(runSync(context, store, vault), context, first: true)
        return 0
    }

    /// A remote given to `sync enable` must be usable before anything is saved (the setting, the vault, the group):
    /// a folder that exists and is writable, a git repository git can read. Exit 4 otherwise, nothing changed.
    static func validate(_ settings: SyncSettings) throws {
        let option = settings.transport == .folder ? "--folder" : "--git"
        if settings.location.isEmpty
            || settings.location.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        {
            throw ShelfError(
                .invalid,
                "\(option): '\(Display.safe(settings.location))' is not a "
                    + "\(settings.transport == .folder ? "folder" : "repository URL")",
                hint: "nothing was saved")
        }
        do {
            switch settings.transport {
            case .folder: try FolderRemote(path: settings.location).checkUsable()
            case .git: try GitRemote.probe(settings.location)
            }
        } catch {
            let missing = settings.transport == .folder && error.reason.hasSuffix(" not found")
            let hint =
                missing
                ? "create it first (mkdir -p \(ShellWord.quote(settings.location))) or mount it"
                : error.hint ?? "check it"
            throw ShelfError(.invalid, "\(option): \(Display.safe(error.reason))", hint: "\(hint); nothing was saved")
        }
    }

    static func invite(_ call: Call<InviteOptions>, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        guard try SyncSettings.load(from: store) != nil else {
            throw ShelfError(.failure, "sync is off", hint: offHint)
        }
        let lifetime = call[\.expires] ?? 3600
        guard try GroupInfo.isMember(store) else {
            throw ShelfError(
                .failure, "this device is not an enrolled member of a sync group yet",
                hint: "run 'sshelf sync now' (the first device creates the group) or join one with 'sshelf sync join'")
        }
        let vault = try VaultCommands.open(context, create: true)
        try unlock(SecretInput(call, \.passphraseFD), vault, store)
        let code = try GroupInfo.createInvite(store: store, vault: vault, lifetime: lifetime)
        let result = runSync(context, store, vault)
        let status = report(result, context)
        let settings = try SyncSettings.load(from: store)
        let written = settings.map { SyncRunner.localFolder($0, context.locations).hasInviteBox(code.id) } ?? false
        guard written, result.reason?.hasPrefix("git") != true else {
            context.print("the invite is kept and goes to the remote on the next successful sync; its code:")
            context.print("    \(code.text)")
            return status
        }
        let expiry = ISO8601.format(Date().addingTimeInterval(lifetime))
        context.print("invite code (shown only now; works once, until \(expiry)):")
        context.print("    \(code.text)")
        context.print(
            "on the new device: 'sshelf sync enable' with the same remote, then 'sshelf sync join' and type the code;")
        context.print("this device enrolls it on its next sync")
        return status
    }

    static func join(_ call: Call<JoinOptions>, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        guard try SyncSettings.load(from: store) != nil else {
            throw ShelfError(
                .failure, "sync is off on this device",
                hint: "first 'sshelf sync enable --folder PATH' (or --git URL) with the same remote")
        }
        if try GroupInfo.membership(store) == "member" {
            // A second join is rarely meant: say where this device stands and what a code would do before asking.
            let name = try GroupInfo.names(store)[try store.deviceID] ?? deviceName()
            context.warn(
                "this device is enrolled in a sync group already (as '\(Display.safe(name))', "
                    + "\(try GroupInfo.devices(store).filter { $0.revokedBy == nil }.count) devices); a code for that "
                    + "group is refused, and a code for another group makes this device leave this one (its local "
                    + "data stays)")
        }
        let typed = try SecretInput(call, \.codeFD).read(prompt: "Invite code: ")
        let text = typed.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        let code: InviteCode
        switch InviteCode.parse(text) {
        case .success(let parsed): code = parsed
        case .failure(.formatOneJoinCode):
            throw ShelfError(
                .invalid, "this is a join code from an older sshelf (sync format 1), which no longer enrolls a device",
                hint: "make an invite on an enrolled device with 'sshelf sync invite' and type that code")
        case .failure(.wrongLength(let count)):
            throw ShelfError(
                .invalid, "the invite code has \(count) characters; an invite code has \(InviteCode.symbols)",
                hint: "copy it again from 'sshelf sync invite'; nothing was written")
        case .failure(.badCharacter):
            throw ShelfError(
                .invalid, "the invite code contains a character that is not in it (0, 1, 8 and 9 never are)",
                hint: "check it character by character; nothing was written")
        case .failure(.checksum):
            throw ShelfError(
                .invalid, "the invite code is wrong (its checksum does not match)",
                hint: "check it character by character; nothing was written")
        }
        let vault = try VaultCommands.open(context, create: true)
        try unlock(SecretInput(call, \.passphraseFD), vault, store)
        // A choice made with 'sync enable --credentials' before the join stands: the join does not ask again.
        let consented = try SyncSettings.credentialsEnabled(store)
        let joined: Join.Result
        do {
            joined = try SyncRunner.join(
                code: code, store: store, locations: context.locations, deviceName: deviceName(), vault: vault)
        } catch let failure as SyncFailure {
            throw ShelfError(.failure, Display.safe(failure.reason), hint: failure.hint)
        }
        context.print(
            "joined the sync group invited by "
                + "\(Display.safe(joined.inviter))\(joined.credentials ? " (it syncs credentials)" : "");")
        context.print("this device syncs in once \(Display.safe(joined.inviter)) has enrolled it (on its next sync)")
        if joined.credentials && consented {
            context.print(
                "credential sync stays on for this device (agreed with 'sshelf sync enable --credentials' before "
                    + "the join)")
        } else if joined.credentials {
            // The invite turned the track on; it stays on only once the user agreed to what that means here.
            do {
                try SyncCredentialConsent.obtain(
                    SyncCredentialConsent.Given(call, \.consent), context, store: store, vault: vault,
                    retry: "sshelf sync enable --credentials")
                context.print(
                    "credential sync on for this device: passwords and keys travel sealed to the group's devices")
            } catch let refusal as SyncCredentialConsent.Refusal {
                try SyncSettings.setCredentials(false, store)
                context.warn("\(refusal.message); this device syncs the config only")
                context.errorOutput("sshelf: hint: \(refusal.hint)\n")
            }
        }
        context.print(
            try SyncSettings.credentialsEnabled(store)
                ? "this device will receive the group's hosts, groups, identities and forwards, and the passwords "
                    + "and keys credential sync carries (sealed to this device)"
                : "this device will receive the group's hosts, groups, identities and forwards; not passwords or "
                    + "keys (to take those: 'sshelf sync enable --credentials')")
        let result = runSync(context, store, vault)
        if result.state == .localFallback, result.membership == "waiting" {
            context.print("waiting to be enrolled (invited by \(Display.safe(joined.inviter)))")
            return 0
        }
        return report(result, context)
    }

    static func now(_ call: Call<PassphraseOptions>, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        guard try SyncSettings.load(from: store) != nil else {
            throw ShelfError(.failure, "sync is off", hint: offHint)
        }
        let vault: Vault
        do { vault = try VaultCommands.open(context, create: true) } catch {
            // The run happens anyway, to fail on the vault the same way: the saved status (`sync status`, the status
            // line) then says why sync stopped instead of keeping the last good run.
            _ = SyncRun.run(context.workspace, store: store)
            throw error
        }
        try unlock(SecretInput(call, \.passphraseFD), vault, store)
        return report(runSync(context, store, vault), context)
    }

    static func revoke(_ call: Call<RevokeOptions>, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        guard try SyncSettings.load(from: store) != nil else {
            throw ShelfError(.failure, "sync is off", hint: offHint)
        }
        let target = try device(call.argument(0) ?? "", in: store, command: "sshelf sync revoke")
        guard target.uuidString.lowercased() != (try store.deviceID) else {
            throw ShelfError(.usage, "a device cannot revoke itself", hint: "revoke it from another enrolled device")
        }
        try SyncRevokeConfirm.obtain(yes: call[\.yes], context, target: target, store: store)
        let vault = try VaultCommands.open(context, create: true)
        try unlock(SecretInput(call, \.passphraseFD), vault, store)
        let result = SyncRun.run(context.workspace, store: store, vault: vault, revoke: target)
        let revoked = try GroupInfo.devices(store).first { $0.id == target.uuidString.lowercased() }?.revokedAt != nil
        guard revoked else {
            _ = report(result, context)
            throw ShelfError(
                .failure, "the device was not revoked",
                hint: "fix the sync problem above and run 'sshelf sync revoke' again")
        }
        return report(result, context)
    }

    /// The device a command names: a unique name (ignoring case) or an id prefix of at least four characters. Several
    /// matches are listed with how to pick one.
    static func device(_ text: String, in store: Store, command: String, rest: String = "") throws -> UUID {
        switch try GroupInfo.find(text, in: store) {
        case .found(let id, _): return id
        case .notFound:
            throw ShelfError(
                .notFound, "no device '\(Display.safe(text))' in the sync group",
                hint: "give a name or an id prefix (4 characters or more) from 'sshelf sync devices'")
        case .ambiguous(let candidates):
            let example = candidates.first.flatMap { $0.split(separator: "(").last?.prefix(4) } ?? "ID"
            let renaming = rest.isEmpty ? ", or give it a name of its own: 'sshelf sync rename \(example) NAME'" : ""
            throw ShelfError(
                .usage,
                "'\(Display.safe(text))' names \(candidates.count) devices: "
                    + "\(Display.safe(candidates.joined(separator: ", ")))",
                hint: "pick one by its id prefix, e.g. '\(command) \(example)\(rest)'\(renaming)")
        }
    }

    static func rename(_ call: Call<PassphraseOptions>, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        guard try SyncSettings.load(from: store) != nil else {
            throw ShelfError(.failure, "sync is off", hint: offHint)
        }
        let name = call.argument(call.argument(1) == nil ? 0 : 1) ?? ""
        let target =
            try call.argument(1) == nil
            ? nil
            : call.argument(0).map {
                try device($0, in: store, command: "sshelf sync rename", rest: " \(Display.safe(name))")
            }
        let vault = try VaultCommands.open(context, create: true)
        try unlock(SecretInput(call, \.passphraseFD), vault, store)
        let former: String
        do {
            former = try GroupInfo.rename(target, to: name, store: store, vault: vault)
        } catch let failure as SyncFailure {
            throw ShelfError(.invalid, Display.safe(failure.reason), hint: failure.hint)
        }
        let named = name.trimmingSpaces()
        if let target, target.uuidString.lowercased() != (try store.deviceID) {
            context.print(
                "'\(Display.safe(former))' (\(target.uuidString.lowercased().prefix(8))) is now "
                    + "'\(Display.safe(named))' in the sync group")
        } else {
            context.print("this device is now '\(Display.safe(named))' in the sync group")
        }
        return report(runSync(context, store, vault), context)
    }

    /// One sync run with this device's vault.
    static func runSync(_ context: AppContext, _ store: Store, _ vault: Vault) -> SyncReport {
        SyncRun.run(context.workspace, store: store, vault: vault)
    }

    /// Unlocks with --passphrase-fd, or asks on the terminal when one is there, for every class the run will read
    /// that is locked: sync's own keys, and with the credential track on (or being turned on) every class credentials
    /// travel in — the ones items move from included, so the track is not paused in a terminal that could have asked.
    /// Without either the run reports the locked vault.
    static func unlock(
        _ input: SecretInput, _ vault: Vault, _ store: Store, turningCredentialsOn: Bool = false
    ) throws {
        var classes: Set<AccessibilityClass> = [.afterFirstUnlockThisDeviceOnly]
        if try turningCredentialsOn || SyncSettings.credentialsEnabled(store) {
            classes.formUnion(AccessibilityClass.allCases.filter(\.mayLeaveDevice))
            // A vault whose item list cannot be read is the run's to report (as its fallback reason), not this.
            classes.formUnion((try? CredentialSyncPlan.make(vault: vault, store: store))?.moves.map(\.stored) ?? [])
        }
        if input.fd == nil {
            let tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
            guard tty >= 0 else { return }
            close(tty)
        } else {
            // A script that gives the passphrase gives it for everything a sync may read.
            classes.formUnion(AccessibilityClass.allCases.filter(\.mayLeaveDevice))
        }
        try VaultCommands.unlockIfNeeded(vault, for: classes, input)
    }

    /// Prints a run's outcome; exit 1 when sync fell back to the local store. The `first` run of `sync enable` is told
    /// as such, its fallback as what it found rather than the command's error.
    /// A saved report as `--json` shows it: the hint in its face-neutral words (`hint`), not the faces' data.
    static func jsonReport(_ report: SyncReport) -> SyncReport {
        var shown = report
        shown.guidance = nil
        return shown
    }

    static func report(_ report: SyncReport, _ context: AppContext, first: Bool = false) -> Int32 {
        for line in report.skipped { context.warn("skipped \(Display.safe(line))") }
        for line in report.warnings { context.warn(Display.safe(line)) }
        for line in report.events { context.print(Display.safe(line)) }
        let prefix = first ? "first sync: " : ""
        switch report.state {
        case .synced:
            var line =
                "\(prefix)synced: \(report.pulled) change\(report.pulled == 1 ? "" : "s") received, \(report.pushed) "
                + "sent"
            if report.credentials {
                line += "; credentials: \(report.credentialsReceived) received, \(report.credentialsSent) in the upload"
                if report.migrated > 0 { line += ", \(report.migrated) moved to syncable classes" }
            }
            context.print(line)
            if let notice = report.notice { context.print("\(notice): \(credentialsHint)") }
            if report.conflicts > 0 { context.print(conflictLine(report.conflicts)) }
            return 0
        case .localFallback:
            context.errorOutput(
                "sshelf: \(first ? "first sync" : "error"): local fallback: "
                    + "\(Display.safe(report.reason ?? "unknown"))\n")
            if let hint = CLIErrorHints.words(report) {
                context.errorOutput("sshelf: hint: \(Display.safe(hint))\n")
            }
            return 1
        case .off:
            context.print("sync off")
            return 0
        }
    }

    static let credentialsHint =
        "other devices send passwords and keys; to take them here run 'sshelf sync enable --credentials'"

    static func conflictLine(_ count: Int) -> String {
        "\(count) merge conflict\(count == 1 ? "" : "s") to look at: 'sshelf sync conflicts'"
    }

    static func status(_ call: Call<JSONOptions>, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        let settings = try SyncSettings.load(from: store)
        var last = SyncRunner.lastReport(context.locations)
        if settings == nil { last = SyncReport(state: .off, at: Date()) }
        let conflicts = try store.unseenConflictCount()
        if call[\.json] {
            struct View: Encodable {
                var state: String
                var transport: String?
                var location: String?
                var device: String
                var membership: String?
                var pendingUp: Int
                var conflicts: Int
                var notice: String?
                var lastRun: SyncReport?
            }
            let state = settings == nil ? "off" : last?.state.rawValue ?? "never run"
            context.print(
                try JSONOutput.encode(
                    View(
                        state: state, transport: settings?.transport.rawValue,
                        location: settings?.location, device: try store.deviceID,
                        membership: last?.membership,
                        pendingUp: settings == nil ? 0 : try SyncSettings.pendingUp(store),
                        conflicts: conflicts, notice: settings == nil ? nil : last?.notice,
                        lastRun: settings == nil ? nil : last.map(jsonReport))))
            return 0
        }
        guard let settings else {
            context.print("○ sync off")
            return 0
        }
        var out =
            "remote: \(settings.transport.rawValue) \(Display.safe(settings.location))\ndevice: \(try store.deviceID) "
            + "(\(Display.safe(try GroupInfo.names(store)[try store.deviceID] ?? deviceName())))\n"
        switch last?.state {
        case .synced?:
            out += "✓ synced \(Display.relative(last?.at)) (\(last?.pulled ?? 0) received, \(last?.pushed ?? 0) sent)\n"
        case .localFallback?:
            out += "▲ local fallback: \(Display.safe(last?.reason ?? "unknown")) (\(Display.relative(last?.at)))\n"
            if let last, let hint = CLIErrorHints.words(last) { out += "  \(Display.safe(hint))\n" }
        default: out += "not synced yet: run 'sshelf sync now'\n"
        }
        if let notice = last?.notice { out += "\(notice): \(credentialsHint)\n" }
        if conflicts > 0 { out += conflictLine(conflicts) + "\n" }
        let pending = try SyncSettings.pendingUp(store)
        if pending > 0 { out += "\(pending) local change\(pending == 1 ? "" : "s") not sent yet\n" }
        for line in last?.skipped ?? [] { out += "  skipped \(Display.safe(line))\n" }
        for line in last?.warnings ?? [] { out += "  warning: \(Display.safe(line))\n" }
        context.output(out)
        return 0
    }

    static func devices(_ call: Call<JSONOptions>, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        guard try SyncSettings.load(from: store) != nil else {
            throw ShelfError(.failure, "sync is off", hint: offHint)
        }
        let devices = try GroupInfo.devices(store)
        if call[\.json] {
            context.print(try JSONOutput.encode(devices))
            return 0
        }
        guard !devices.isEmpty else {
            context.print(
                "this device is in no sync group yet: 'sshelf sync now' creates one on an empty remote, 'sshelf sync "
                    + "join' joins one")
            return 0
        }
        let rows = devices.map { device -> [String] in
            let state =
                device.revokedAt.map { "revoked by \(device.revokedBy ?? "?") \(Display.relative($0))" } ?? "enrolled"
            return [
                String(device.id.prefix(8)), device.name + (device.thisDevice ? " (this device)" : ""), state,
                device.enrolledBy.map { "by \($0)" } ?? "created the group",
                device.thisDevice ? "-" : Display.relative(device.lastSeen),
            ]
        }
        context.output(Display.table(["DEVICE", "NAME", "STATE", "ENROLLED", "LAST SEEN"], rows))
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
