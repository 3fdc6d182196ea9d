// ImportExportCommands: `sshelf import ssh-config` (idempotent: updates by name, never duplicates, never
// touches the source file) and `sshelf export ssh-config` (a config `ssh -G` resolves the same way).
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
            options: ImportOptions.self,
            run: importConfig),
        CommandSpec(
            path: ["export", "ssh-config"], summary: "print all hosts as an OpenSSH config (no secrets)",
            options: ExportOptions.self,
            examples: ["sshelf export ssh-config > ~/.ssh/sshelf.conf   # then 'Include sshelf.conf' in ~/.ssh/config"],
            run: exportConfig),
    ]

    struct ImportOptions: CommandOptions {
        let group = Option(
            "group", short: "g", .text("PATH", completion: .group), "put newly added hosts in this group")
        let groupByFile = Flag(
            "group-by-file",
            "put newly added hosts of each Included file in a group named after it (config.d/work.conf: work; "
                + "inside --group when given)")
        let dryRun = Flag("dry-run", short: "n", "show what would change without writing anything")
    }

    struct ExportOptions: CommandOptions {
        let output = Option(
            "output", short: "o", .path("FILE"), "write to FILE (mode 0600) instead of standard output")
        let force = Flag("force", short: "f", "replace FILE if it exists")
    }

    static func importConfig(_ call: Call<ImportOptions>, _ context: AppContext) throws -> Int32 {
        let outcome = try ConfigImport.run(
            path: call.argument(0), groupPath: call[\.group], groupByFile: call[\.groupByFile],
            dryRun: call[\.dryRun], workspace: context.workspace, store: { try context.store() })
        context.output(outcome.text)
        let failed = outcome.summary.failed
        Release.elsewhere(consume outcome)
        return failed ? 4 : 0
    }

    static func exportConfig(_ call: Call<ExportOptions>, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        var input = try store.read { store in
            SSHConfigEmitter.Input(
                hosts: try store.hosts(), identities: try store.identities(),
                rules: try store.forwardRules(), groups: try store.groups(),
                defaults: try store.optionDefaults())
        }
        input.postQuantumKex = SSHConfigBridge.postQuantumKex(input)
        let text = SSHConfigEmitter.emit(input, generatedBy: "sshelf \(AppVersion.version)")
        guard let output = call[\.output] else {
            context.output(text)
            return 0
        }
        let path = SSHConfigReader.expandTilde(output, home: context.homeDirectory)
        if FileManager.default.fileExists(atPath: path) && !call[\.force] {
            throw ShelfError(.usage, "\(path) exists", hint: "pass --force to replace it")
        }
        do { try PrivateFiles.atomicWrite(Data(text.utf8), to: path) } catch {
            throw ShelfError(.failure, "cannot write \(path): \(error)")
        }
        context.print("wrote \(input.hosts.count) host\(input.hosts.count == 1 ? "" : "s") to \(path)")
        return 0
    }
}
