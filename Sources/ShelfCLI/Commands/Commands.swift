// Commands: the command table — every command sshelf has, in the order --help lists them. Each file owns the
// commands of one path (all of `forward …` in the two forward files, all of `identity …` in one). Commands that
// take one host's name get `--id ID` here, so every one of them has it.
enum Commands {
    static let table: [CommandSpec] = Array(
        [
            HostCommands.commands, SSHCommands.commands,
            [RunCommand.command, CopyCommand.command, FilesCommand.command],
            [CopyIDCommand.command], WarmCommands.commands, SessionCommands.commands, [PlayCommand.command],
            GroupCommands.commands,
            ForwardCommands.commands, ForwardRunCommands.commands, IdentityCommands.commands, CACommands.commands,
            ImportExportCommands.commands,
            SSHConfigCommands.commands, VaultCommands.commands, AgentCommands.commands, LogCommands.commands,
            SnippetCommands.commands, TmuxCommands.commands, SyncCommands.commands, ServiceCommands.commands,
            UICommands.commands,
            MiscCommands.commands,
        ].joined()
    ).map(\.withHostID)
}
