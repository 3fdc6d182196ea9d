// Commands: the command table — every command sshelf has, in the order --help lists them.
enum Commands {
    static let table: [CommandSpec] = Array([
        HostCommands.commands, SSHCommands.commands, [CopyIDCommand.command], WarmCommands.commands, GroupCommands.commands, ForwardCommands.commands,
        ForwardRunCommands.commands,
        Array(MiscCommands.commands.prefix(1)), IdentityKeyCommands.commands, IdentityVaultCommands.commands, ImportExportCommands.commands,
        VaultCommands.commands, [VaultVerifyCommand.command], AgentCommands.commands, LogCommands.commands, SyncCommands.commands, UICommands.commands, Array(MiscCommands.commands.dropFirst()),
    ].joined())
}
