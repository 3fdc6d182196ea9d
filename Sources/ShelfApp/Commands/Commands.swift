// Commands: the command table — every command sshelf has, in the order --help lists them. Each file owns the
// commands of one path (all of `forward …` in the two forward files, all of `identity …` in one).
enum Commands {
    static let table: [CommandSpec] = Array([
        HostCommands.commands, SSHCommands.commands, WarmCommands.commands, GroupCommands.commands, ForwardCommands.commands,
        ForwardRunCommands.commands, IdentityCommands.commands, ImportExportCommands.commands, VaultCommands.commands,
        SyncCommands.commands, UICommands.commands, MiscCommands.commands,
    ].joined())
}
