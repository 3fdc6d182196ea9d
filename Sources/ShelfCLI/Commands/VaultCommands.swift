// VaultCommands: `sshelf vault …` — init, status, unlock, lock, passwd, list, rm, audit, export, import,
// set-password, set-class. Values never reach output, arguments or the environment; secrets come from SecretInput.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfServices
import ShelfStore
import ShelfSync
import ShelfSystem
import ShelfVault

enum VaultCommands {
    /// `--passphrase-fd N` of the commands that open the vault for its own sake.
    static let passphraseFD = Option(
        "passphrase-fd", .descriptor,
        "read the vault passphrase (then any further passphrases, one per line) from descriptor N "
            + "instead of the terminal")

    struct PassphraseOptions: CommandOptions { let passphraseFD = VaultCommands.passphraseFD }

    struct PasswdOptions: CommandOptions {
        let passphraseFD = VaultCommands.passphraseFD
        let remove = Flag("remove", "remove the passphrase")
        let yes = Flag("yes", "confirm destroying whenPasscodeSetThisDeviceOnly items without asking")
    }

    struct SetPasswordOptions: CommandOptions {
        let secretFD = Option("secret-fd", .descriptor, "read the password from descriptor N instead of the terminal")
        let passphraseFD = VaultCommands.passphraseFD
    }

    static let commands: [CommandSpec] = [
        CommandSpec(
            path: ["vault", "init"], summary: "create the vault and this device's key",
            details: "Creates vault.sqlite and device.key (both 0600). Without a passphrase the vault opens with the "
                + "device key alone; set one with 'sshelf vault passwd'.",
            run: initVault),
        CommandSpec(
            path: ["vault", "status"], summary: "show the passphrase, the session (time left) and what is readable now",
            options: JSONOptions.self, run: status),
        CommandSpec(
            path: ["vault", "unlock"], summary: "unlock the vault for every sshelf process of this login",
            details: "Starts the vault session of this login: every sshelf process of yours (the TUI, exec, connect, "
                + "forwards, the agent, sync) can then read whenUnlocked items until 'sshelf vault lock' or the idle "
                + "timeout (15 min without use; SSHELF_VAULT_IDLE_SECONDS), and afterFirstUnlock items until reboot, "
                + "logout or 'sshelf vault lock'. The class keys stay in the kernel user keyring, never in a file. "
                + "Where the keyring is unavailable, nothing outlives this command.",
            options: PassphraseOptions.self, run: unlock),
        CommandSpec(
            path: ["vault", "lock"],
            summary: "lock the vault for every sshelf process (wipes the keyring's class keys)", run: lock),
        CommandSpec(
            path: ["vault", "passwd"], summary: "set, change or remove the vault passphrase",
            details: "Only the class keys are re-wrapped. --remove destroys every whenPasscodeSetThisDeviceOnly item, "
                + "after confirmation (or --yes).",
            options: PasswdOptions.self, run: passwd),
        CommandSpec(
            path: ["vault", "list"],
            summary: "list stored items: key, family, class, the host or identity each is for (never values)",
            options: JSONOptions.self, run: list),
        CommandSpec(
            path: ["vault", "rm"], summary: "delete one stored item",
            arguments: [ArgumentSpec(name: "KEY", help: "reference key, e.g. host.<uuid>.password")], run: remove),
        CommandSpec(
            path: ["vault", "audit"], summary: "report items and files weaker than their use needs",
            details:
                "Checks: no passphrase, weak stretching, loose file permissions, always-class items, credentials of "
                + "autostarting hosts kept whenUnlocked, syncable items while credential sync is off. Exit code 4 "
                + "when anything is found.",
            options: JSONOptions.self, run: audit),
        CommandSpec(
            path: ["vault", "export"], summary: "write items that may leave this device, under an export passphrase",
            details:
                "…ThisDeviceOnly items are never exported. With --passphrase-fd the lines are: the vault passphrase "
                + "(only when one is set), then the export passphrase.",
            arguments: [ArgumentSpec(name: "FILE", help: "file to create (0600)", completion: .file)],
            options: PassphraseOptions.self, run: export),
        CommandSpec(
            path: ["vault", "import"], summary: "restore items from a vault export",
            details: "With --passphrase-fd the lines are: the export passphrase, then the vault passphrase (only "
                + "when needed).",
            arguments: [ArgumentSpec(name: "FILE", help: "a file written by 'sshelf vault export'", completion: .file)],
            options: PassphraseOptions.self, run: importFile),
        CommandSpec(
            path: ["vault", "set-password"], summary: "store a host's password in the vault",
            details: "The class follows when the password is read: whenUnlockedThisDeviceOnly, or "
                + "afterFirstUnlockThisDeviceOnly for hosts with autostart forwards. The vault passphrase (when "
                + "needed) is read before the password.",
            arguments: [
                ArgumentSpec(
                    name: "HOST", help: "host name (NAME@ID when several hosts share it, or an id prefix)",
                    completion: .host)
            ],
            options: SetPasswordOptions.self,
            examples: ["sshelf vault set-password web1 --secret-fd 3 3<password.txt"], run: setPassword),
        CommandSpec(
            path: ["vault", "set-class"], summary: "move a stored item to another accessibility class",
            details: "The same secret, re-sealed under CLASS's key (the vault passphrase is asked when either class is "
                + "locked). afterFirstUnlockThisDeviceOnly lets unattended logins ('sshelf forward up', scripts) read "
                + "it after 'sshelf vault unlock'; whenUnlockedThisDeviceOnly only a process given the passphrase. "
                + "The always classes are refused. The item is then audited like any write: a class weaker than its "
                + "use, or syncable while credential sync is off, is printed as a warning.",
            arguments: [
                ArgumentSpec(
                    name: "KEY", help: "reference key, e.g. identity.<uuid>.privkey (see 'sshelf vault list')"),
                ArgumentSpec(
                    name: "CLASS", help: "the new class",
                    completion: .words(AccessibilityClass.writable.map(\.rawValue))),
            ],
            options: PassphraseOptions.self,
            examples: ["sshelf vault set-class identity.3fa2c1d0-….privkey afterFirstUnlockThisDeviceOnly"],
            run: setClass),
        VaultVerifyCommand.command,
    ]

    // MARK: shared

    static func open(_ context: AppContext, create: Bool) throws -> Vault {
        try VaultAccess.open(context.workspace, create: create)
    }

    /// A vault call whose failure should leave as a ShelfError (for callers that catch ShelfError only).
    static func attempt<T>(_ body: () throws(VaultError) -> T) throws -> T {
        do { return try body() } catch { throw shelfError(error) }
    }

    static func shelfError(_ error: VaultError) -> ShelfError { ShelfError(from: error) }

    /// Asks for the passphrase (from `input`) when any of `classes` is locked in this process.
    static func unlockIfNeeded(_ vault: Vault, for classes: Set<AccessibilityClass>, _ input: SecretInput) throws {
        try VaultAccess.unlockIfNeeded(
            vault, for: classes, passphrase: { try input.read(prompt: "Vault passphrase: ") })
    }

    /// "unlocked for all your sshelf processes, 14 min left (idle timeout 15 min)", "locked — 'sshelf vault unlock'".
    static func sessionLine(_ status: VaultStatus) -> String {
        let session = status.session
        switch session.state {
        case .noPassphrase: return "no passphrase — every item opens with the device key alone"
        case .unlocked:
            let left = session.secondsLeft.map { ", \(VaultSessionState.duration($0)) left" } ?? ""
            return (session.shared ? "unlocked for all your sshelf processes" : "unlocked in this process only")
                + left + " (idle timeout \(VaultSessionState.duration(session.idleSeconds)))"
        case .afterFirstUnlockOnly:
            return "idle — afterFirstUnlock items open, whenUnlocked ones locked; 'sshelf vault unlock' opens them"
        case .locked: return "locked — 'sshelf vault unlock' opens it for all your sshelf processes"
        }
    }

    // MARK: commands

    static func initVault(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let existed = Vault.exists(at: context.locations)
        let vault = try open(context, create: true)
        let status = try attempt { () throws(VaultError) in try vault.status() }
        context.print(
            existed ? "the vault already exists at \(status.vaultPath)" : "created the vault at \(status.vaultPath)")
        if !status.hasPassphrase {
            context.print("no passphrase yet: items open with the device key alone; set one with 'sshelf vault passwd'")
        }
        return 0
    }

    static func status(_ call: Call<JSONOptions>, _ context: AppContext) throws -> Int32 {
        let vault = try open(context, create: false)
        let status = try attempt { () throws(VaultError) in try vault.status() }
        if call[\.json] {
            context.print(try JSONOutput.encode(status))
            return 0
        }
        var lines = [
            "vault:       \(status.vaultPath)",
            "device key:  \(status.deviceKeyPath)",
            "passphrase:  "
                + (status.hasPassphrase
                    ? "set (\(status.passphraseStretch ?? ""))\(status.weakStretch ? ", weaker than MODERATE" : "")"
                    : "none — class keys are wrapped by the device key alone"),
            "session:     \(sessionLine(status))",
            "keyring:     \(status.keyring) — \(status.keyringDetail)",
            "items:       \(status.itemCount)",
        ]
        lines.append("")
        lines.append(
            Display.table(
                ["CLASS", "NOW", "ITEMS"], status.classes.map { [$0.accessibility, $0.state, "\($0.items)"] }))
        context.output(lines.joined(separator: "\n"))
        return 0
    }

    static func unlock(_ call: Call<PassphraseOptions>, _ context: AppContext) throws -> Int32 {
        let vault = try open(context, create: false)
        guard vault.hasPassphrase else {
            context.print("the vault has no passphrase: every item opens with the device key alone; nothing to unlock")
            return 0
        }
        // The TUI's rule: three tries (from a descriptor, its next lines), the agent's back-off between them. An
        // empty line (or the end of the descriptor's) is nothing more given.
        let input = SecretInput(call, \.passphraseFD)
        var unread: Error?
        let outcome = PassphraseTries.unlock(vault) { question in
            do {
                let line = try input.read(prompt: question + " ")
                return line.count == 0 ? nil : line
            } catch {
                unread = error
                return nil
            }
        }
        switch outcome {
        case .unlocked: break
        case .cancelled(let wrong?), .wrongPassphrase(let wrong): throw shelfError(wrong)
        case .cancelled(nil): throw unread ?? ShelfError(.usage, "no vault passphrase was given")
        case .failed(let error): throw shelfError(error)
        }
        let status = try attempt { () throws(VaultError) in try vault.status() }
        // A sync of the user service's that fell back on a locked vault need not wait for its backoff.
        if status.session.shared { ServiceFiles.nudge(context.locations) }
        if status.session.shared {
            let idle = VaultSessionState.duration(status.session.idleSeconds)
            context.print(
                "unlocked for all your sshelf processes: whenUnlocked items until 'sshelf vault lock' or \(idle) "
                    + "without use, afterFirstUnlock items until reboot or logout")
        } else {
            context.print("the passphrase is correct, but \(status.keyringDetail); this command's unlock ends with it")
        }
        return 0
    }

    static func lock(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let vault = try open(context, create: false)
        vault.lock()
        let keyring = try attempt { () throws(VaultError) in try vault.status() }.keyring
        context.print(
            keyring == "kernel"
                ? "locked: the class keys were wiped from the kernel keyring; every sshelf process asks for the "
                    + "passphrase again"
                : "locked: no class keys were cached outside a process (the kernel keyring is not in use)")
        return 0
    }

    static func passwd(_ call: Call<PasswdOptions>, _ context: AppContext) throws -> Int32 {
        let vault = try open(context, create: true)
        let input = SecretInput(call, \.passphraseFD)
        let had = vault.hasPassphrase
        let current = had ? try input.read(prompt: "Current vault passphrase: ") : nil
        if call[\.remove] {
            guard let current else {
                context.print("the vault has no passphrase; nothing to remove")
                return 0
            }
            try attempt { () throws(VaultError) in try vault.unlock(passphrase: current) }
            let doomed = try attempt { () throws(VaultError) in try vault.items() }
                .filter { $0.knownClass == .whenPasscodeSetThisDeviceOnly }
            if !doomed.isEmpty && !call[\.yes] {
                guard input.fd == nil else {
                    throw ShelfError(
                        .usage,
                        "removing the passphrase destroys \(doomed.count) whenPasscodeSetThisDeviceOnly item(s)",
                        hint: "add --yes to confirm")
                }
                let answer = try input.read(
                    prompt: "Removing the passphrase destroys \(doomed.count) item(s). Type 'yes' to go on: ")
                guard answer.isEqual(to: SecretBytes(Array("yes".utf8))) else {
                    context.print("nothing changed")
                    return 1
                }
            }
            let destroyed = try attempt { () throws(VaultError) in try vault.removePassphrase(current: current) }
            context.print("passphrase removed; \(destroyed) whenPasscodeSetThisDeviceOnly item(s) destroyed")
            return 0
        }
        let new = try input.readNew(prompt: "New vault passphrase: ", confirm: "Repeat the new passphrase: ")
        try attempt { () throws(VaultError) in try vault.setPassphrase(new, current: current) }
        context.print(had ? "passphrase changed (class keys re-wrapped; items untouched)" : "passphrase set")
        return 0
    }

    static func list(_ call: Call<JSONOptions>, _ context: AppContext) throws -> Int32 {
        let vault = try open(context, create: false)
        let items = try attempt { () throws(VaultError) in try vault.items() }
        let store = FileManager.default.fileExists(atPath: context.locations.store) ? try context.store() : nil
        let names = try VaultItemNames(store)
        if call[\.json] {
            context.print(try JSONOutput.encode(items.map { VaultItemNames.Listed($0, name: names.name(of: $0.key)) }))
        } else if items.isEmpty {
            context.errorOutput("the vault holds no items\n")
        } else {
            context.output(
                Display.table(
                    ["KEY", "FAMILY", "CLASS", "UPDATED", "FOR"],
                    items.map {
                        [$0.key, $0.family, $0.accessibility, Display.relative($0.updatedAt), names.name(of: $0.key)]
                    }))
        }
        return 0
    }

    static func remove(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        guard let key = ReferenceKey(call.arguments[0]) else {
            throw ShelfError(
                .invalid, "'\(Display.safe(call.arguments[0]))' is not a vault key", hint: "see 'sshelf vault list'")
        }
        let vault = try open(context, create: false)
        let items = try attempt { () throws(VaultError) in try vault.items() }
        guard let item = items.first(where: { $0.key == key.rawValue }), let accessibility = item.knownClass else {
            throw ShelfError(.notFound, "the vault holds nothing under \(key)", hint: "see 'sshelf vault list'")
        }
        try attempt { () throws(VaultError) in _ = try vault.delete(key, class: accessibility) }
        context.print("deleted \(key) (\(accessibility))")
        return 0
    }

    static func audit(_ call: Call<JSONOptions>, _ context: AppContext) throws -> Int32 {
        let store = FileManager.default.fileExists(atPath: context.locations.store) ? try context.store() : nil
        let findings = try CredentialOperations.audit(context.workspace, store: store)
        if call[\.json] {
            context.print(try JSONOutput.encode(findings))
        } else if findings.isEmpty {
            context.print("no problems found")
        } else {
            context.output(findings.map { "\($0.rule): \(Display.safe($0.message))\n" }.joined())
        }
        return findings.isEmpty ? 0 : 4
    }

    static func export(_ call: Call<PassphraseOptions>, _ context: AppContext) throws -> Int32 {
        let path = call.arguments[0]
        let vault = try open(context, create: false)
        let input = SecretInput(call, \.passphraseFD)
        try unlockIfNeeded(vault, for: Set(AccessibilityClass.writable.filter(\.mayLeaveDevice)), input)
        let passphrase = try input.readNew(prompt: "Export passphrase: ", confirm: "Repeat the export passphrase: ")
        let exported = try attempt { () throws(VaultError) in
            try vault.export(
                passphrase: passphrase, log: ReleaseLog(locations: context.locations), destination: Display.safe(path))
        }
        do {
            try PrivateFiles.atomicWrite(Data(exported.file), to: path)
        } catch {
            throw ShelfError(.failure, "cannot write \(Display.safe(path)): \(error)")
        }
        context.print(
            "exported \(exported.count) item(s) to \(Display.safe(path)); …ThisDeviceOnly items stay on this device")
        return 0
    }

    static func importFile(_ call: Call<PassphraseOptions>, _ context: AppContext) throws -> Int32 {
        let path = call.arguments[0]
        let data: [UInt8]
        do { data = try RegularFile.read(path) } catch {
            throw ShelfError(error.kind == .missing ? .notFound : .invalid, Display.safe(error.description))
        }
        let vault = try open(context, create: true)
        let input = SecretInput(call, \.passphraseFD)
        let passphrase = try input.read(prompt: "Export passphrase: ")
        try unlockIfNeeded(vault, for: Set(AccessibilityClass.writable.filter(\.mayLeaveDevice)), input)
        let count = try attempt { () throws(VaultError) in try vault.importExport(data, passphrase: passphrase) }
        context.print("imported \(count) item(s)")
        return 0
    }

    static func setPassword(_ call: Call<SetPasswordOptions>, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        let host = try Resolve.host(call.arguments[0], in: store)
        let vaultInput = SecretInput(call, \.passphraseFD)
        let secretInput = SecretInput(call, \.secretFD)
        let accessibility = try CredentialOperations.storeHostPassword(
            host.id, workspace: context.workspace, store: store,
            vaultPassphrase: { try vaultInput.read(prompt: "Vault passphrase: ") },
            password: { try secretInput.read(prompt: "Password for \(Display.safe(host.name)): ") })
        context.print("stored the password for \(Display.safe(host.name)) in the vault (\(accessibility))")
        return 0
    }

    static func setClass(_ call: Call<PassphraseOptions>, _ context: AppContext) throws -> Int32 {
        guard let key = ReferenceKey(call.arguments[0]) else {
            throw ShelfError(
                .invalid, "'\(Display.safe(call.arguments[0]))' is not a vault key", hint: "see 'sshelf vault list'")
        }
        guard let target = AccessibilityClass(rawValue: call.arguments[1]) else {
            throw ShelfError(
                .invalid, "'\(Display.safe(call.arguments[1]))' is not an accessibility class",
                hint: "one of: \(AccessibilityClass.writable.map(\.rawValue).joined(separator: ", "))")
        }
        let store = FileManager.default.fileExists(atPath: context.locations.store) ? try context.store() : nil
        let input = SecretInput(call, \.passphraseFD)
        let change = try CredentialOperations.setClass(
            key, to: target, workspace: context.workspace, store: store,
            vaultPassphrase: { try input.read(prompt: "Vault passphrase: ") })
        context.print(
            change.from == change.to
                ? "\(key) is already stored \(change.to)" : "moved \(key) from \(change.from) to \(change.to)")
        for finding in change.findings { context.warn("\(finding.rule): \(finding.message)") }
        return 0
    }
}
