// ImportExportCommands: `sshelf import ssh-config` (idempotent: updates by name, never duplicates, never
// touches the source file) and `sshelf export ssh-config` (a config `ssh -G` resolves the same way).
import Dispatch
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfServices
import ShelfStore
import ShelfSystem

enum ImportExportCommands {
    static let commands: [CommandSpec] = [
        CommandSpec(
            path: ["import", "ssh-config"], summary: "import hosts from an OpenSSH config (default ~/.ssh/config)",
            details: """
                Host blocks become hosts: the names of one Host line that ssh resolves alike are one host with \
                aliases, a name that resolves differently a host of its own. HostName, User, Port, IdentityFile, \
                ProxyJump, Local/Remote/DynamicForward and every other option are carried over, with Include followed \
                (globs; relative paths resolve against ~/.ssh, or the imported file's folder when it lies elsewhere). \
                The options of a wildcard Host pattern are kept as defaults for the hosts it matches. Match blocks \
                are decided for each name as ssh -G decides them (host, originalhost, user, localuser, all, \
                canonical, final); one only ssh can decide when it connects (exec, localnetwork) is kept as written \
                for OpenSSH, export writes it back, and each host it may change gets a note. Importing again updates \
                hosts of the same name instead of adding duplicates. The file itself is only read. Each file \
                may be up to 256 MiB (about two million hosts); split a larger one with Include. All hosts \
                are written in one transaction: no other sshelf ever sees half an import.
                """,
            arguments: [ArgumentSpec(name: "PATH", help: "config file to read", optional: true, completion: .file)],
            options: [
                .value("group", "PATH", short: "g", completion: .group, "put newly added hosts in this group"),
                .flag(
                    "group-by-file",
                    "put newly added hosts of each Included file in a group named after it (config.d/work.conf: work; "
                        + "inside --group when given)"),
                .flag("dry-run", short: "n", "show what would change without writing anything"),
            ],
            run: importConfig),
        CommandSpec(
            path: ["export", "ssh-config"], summary: "print all hosts as an OpenSSH config (no secrets)",
            options: [
                .value(
                    "output", "FILE", short: "o", completion: .file,
                    "write to FILE (mode 0600) instead of standard output"),
                .flag("force", short: "f", "replace FILE if it exists"),
            ],
            examples: ["sshelf export ssh-config > ~/.ssh/sshelf.conf   # then 'Include sshelf.conf' in ~/.ssh/config"],
            run: exportConfig),
    ]

    /// Rolls the dry run's transaction back, carrying what the real import would have printed and whether it
    /// would have failed: a dry run predicts the exit status too.
    struct DryRun: Error { var summary: String; var failed: Bool }

    static func importConfig(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let home = context.homeDirectory
        let path = SSHConfigReader.expandTilde(call.argument(0) ?? "~/.ssh/config", home: home)
        let sshDirectory = home + "/.ssh"
        let base = path.hasPrefix(sshDirectory + "/") ? sshDirectory : path.parentPath
        let source = UserSSHConfig.fileSource(home: home, own: context.locations.configDirectory)
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
        releaseElsewhere(consume document)
        // The installed ssh is shown the kept lines on the other core while this one plans the import.
        let scratch = context.locations.configDirectory
        try PrivateFiles.ensureDirectory(scratch)
        let optionLists = resolved.hosts.map(\.options) + resolved.defaults.map(\.options)
        let refused = BackgroundValue { RefusedOptions.refused(optionLists, scratch: scratch) }
        let store = try context.store()
        let summary: ImportSummary
        var text: BackgroundValue<String>?
        do {
            summary = try store.bulkWrite { store in
                var planned = try ImportPlan.apply(
                    resolved, groupPath: call.value("group"), home: home,
                    leftovers: BridgeLeftovers(locations: context.locations), store: store,
                    groupByFile: call.flag("group-by-file") ? path : nil)
                planned.warnings += ImportPlan.refusedWarnings(resolved, refused: refused.value)
                let summary = planned
                if call.flag("dry-run") {
                    throw DryRun(summary: summary.text(path: path, dryRun: true), failed: !summary.failures.isEmpty)
                }
                // The report (a line for each host added) is written on the other core while this one commits.
                text = BackgroundValue { summary.text(path: path, dryRun: false) }
                return summary
            }
        } catch let dry as DryRun {
            context.output(dry.summary)
            return dry.failed ? 4 : 0
        }
        releaseElsewhere(consume resolved)
        // ~/.ssh/config as imported now: `check` says when it changes after this (UserConfigSource).
        try UserConfigSource(bridge: SSHConfigBridge(workspace: context.workspace)).recordImport(of: path, store: store)
        let report = text?.value ?? summary.text(path: path, dryRun: false)
        context.output(report)
        let failed = !summary.failures.isEmpty
        releaseElsewhere((consume summary, consume report))
        return failed ? 4 : 0
    }

    /// Drops the last reference to `value` on another core: freeing what a 100,000-host file parses into (half a
    /// million lines, 100,000 hosts) took the import's one thread tens of milliseconds, while the other core was idle.
    static func releaseElsewhere<T: Sendable>(_ value: T) {
        DispatchQueue.global(qos: .utility).async { withExtendedLifetime(value) {} }
    }

    static func exportConfig(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        let input = try store.read { store in
            SSHConfigEmitter.Input(
                hosts: try store.hosts(), identities: try store.identities(),
                rules: try store.forwardRules(), groups: try store.groups(),
                defaults: try store.optionDefaults())
        }
        let text = SSHConfigEmitter.emit(input, generatedBy: "sshelf \(AppVersion.version)")
        guard let output = call.value("output") else {
            context.output(text)
            return 0
        }
        let path = SSHConfigReader.expandTilde(output, home: context.homeDirectory)
        if FileManager.default.fileExists(atPath: path) && !call.flag("force") {
            throw ShelfError(.usage, "\(path) exists", hint: "pass --force to replace it")
        }
        do { try PrivateFiles.atomicWrite(Data(text.utf8), to: path) } catch {
            throw ShelfError(.failure, "cannot write \(path): \(error)")
        }
        context.print("wrote \(input.hosts.count) host\(input.hosts.count == 1 ? "" : "s") to \(path)")
        return 0
    }
}
